/// The final HTTP response to a request (interim `1xx` responses and their headers are dropped).
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200 or 412.
    public var status: Int
    /// Header fields as received, names lower-cased.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The HTTP version the response came with: `1.1`, `2`, …
    public var httpVersion: String

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8], httpVersion: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
    }

    /// The value of the first header field named `name` (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }

    /// The body decoded as UTF-8 (invalid sequences repaired).
    public var text: String { String(decoding: body, as: UTF8.self) }
}
