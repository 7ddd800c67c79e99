/// One HTTP request: a method, an absolute URL, header fields and an optional body.
public struct HTTPRequest: Sendable {
    public var method: String
    /// An absolute `http://` or `https://` URL.
    public var url: String
    /// Header fields in order, as they should be sent.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?

    public init(
        method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
