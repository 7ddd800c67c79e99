import CMicroHTTPD
import Synchronization

/// One request's state between libmicrohttpd's calls for it: its target, its head once parsed, the ticket its head
/// check gave it, its body as it arrives (never more than the limit, metered when the ticket is a
/// ``HTTPServer/BodyMeter``), and its responder's id once the handler ran.
///
/// Lifetime rule: made by the URI-log callback (the first callback of a request) and handed to the daemon
/// *retained* as the request's context (`*req_cls`); released by the completion notifier, which libmicrohttpd
/// calls for every request that reached the URI-log callback, however it ended (answered, refused by the daemon,
/// the client gone, the daemon stopping). Confined to the thread polling its connection (libmicrohttpd calls one
/// connection's callbacks on that thread only), so it needs no lock and is not `Sendable`.
final class MicroHTTPDRequest {
    /// The request target as sent (`path?query`), before libmicrohttpd decodes it.
    let target: String
    /// Set on the access handler's first call, when the head has arrived.
    var head: HTTPServer.Request?
    /// The body so far; emptied and no longer filled once it passed the limit.
    var body: [UInt8] = []
    /// The body passed the limit: the rest is read and dropped, and the answer is 413.
    var overLimit = false
    /// The ticket's ``HTTPServer/BodyMeter`` refused the body: the rest is read and dropped, and this is the answer.
    var refusal: HTTPServer.Response?
    /// What the head check handed on for the handler; dropped with this state, when the request has ended.
    var ticket: (any Sendable)?
    /// Set when the handler was called: the request's entry in ``MicroHTTPDContext/responders``.
    var responderID: UInt?
    /// The answer closes the connection (`Connection: close`): one request per connection, or the last one allowed.
    var closesConnection = true

    /// Counts this state while it lives (``MicroHTTPDContext/liveRequests``).
    private let context: MicroHTTPDContext

    init(target: String, context: MicroHTTPDContext) {
        self.target = target
        self.context = context
        context.liveRequests.add(1, ordering: .relaxed)
    }

    deinit {
        if let responderID { context.responders.forget(responderID) }
        context.liveRequests.subtract(1, ordering: .relaxed)
    }

    /// Appends a piece of the body, or notes that the body passed `limit` (then drops what it kept); tells the
    /// ticket's ``HTTPServer/BodyMeter``, if any, what is held now, and drops the body when the meter refuses it.
    func receive(_ piece: UnsafeRawBufferPointer, limit: Int) {
        guard !overLimit, refusal == nil else { return }
        let meter = ticket as? any HTTPServer.BodyMeter
        guard body.count + piece.count <= limit else {
            overLimit = true
            body = []
            _ = meter?.bodyHeld(0)
            return
        }
        body.append(contentsOf: piece)
        if let refused = meter?.bodyHeld(body.count) {
            refusal = refused
            body = []
            _ = meter?.bodyHeld(0)
        }
    }

    // MARK: - Reading the head

    /// The request's head from the connection: method, target, header fields and the client's address.
    static func head(of connection: OpaquePointer, method: String, target: String) -> HTTPServer.Request {
        HTTPServer.Request(
            method: HTTPServer.Method(method), target: target, headers: headers(of: connection),
            remoteAddress: cmhd_connection_client_address(connection).flatMap { SocketAddressText.host(of: $0) })
    }

    /// The header fields in order, repeated ones included (`MHD_get_connection_values_n`, lengths given, so a
    /// value is never cut at a NUL).
    private static func headers(of connection: OpaquePointer) -> HTTPServer.Headers {
        final class Collected {
            var fields: [(name: String, value: String)] = []
        }
        let collected = Collected()
        let iterator: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
            guard let cls, let key else { return .YES }
            let fields = Unmanaged<Collected>.fromOpaque(cls).takeUnretainedValue()
            let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
            let text = value.map {
                String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self)
            }
            fields.fields.append((name: name, value: text ?? ""))
            return .YES
        }
        withExtendedLifetime(collected) {
            _ = MHD_get_connection_values_n(
                connection, .HEADER_KIND, iterator, Unmanaged.passUnretained(collected).toOpaque())
        }
        return HTTPServer.Headers(collected.fields)
    }

    /// Whether the head announces a body bigger than `limit`: a `Content-Length` over it, or, when no body is
    /// accepted at all, any `Transfer-Encoding` (libmicrohttpd has already refused a malformed `Content-Length`).
    static func announcesBody(_ head: HTTPServer.Request, over limit: Int) -> Bool {
        if limit == 0, head.headers.contains("Transfer-Encoding") { return true }
        guard let length = head.headers["Content-Length"] else { return false }
        guard let bytes = UInt64(length.trimmingASCIISpaces) else { return true }
        return bytes > UInt64(limit)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate var trimmingASCIISpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
