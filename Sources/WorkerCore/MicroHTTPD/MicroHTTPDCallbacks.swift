import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The plain C functions libmicrohttpd calls; each finds its ``MicroHTTPDContext`` in the `cls` argument (see the
/// lifetime rule there). They run on the daemon's threads.
enum MicroHTTPDCallbacks {
    /// Answers a request as soon as its head has arrived (the first call): GET and HEAD go to the Swift handler,
    /// other methods get 405, and a request announcing a body gets 413. Answering on the first call makes the
    /// daemon discard any body and close the connection after the response.
    static let access: MHD_AccessHandlerCallback = { cls, connection, url, method, _, _, _, _ in
        guard let cls, let connection else { return .NO }
        let context = Unmanaged<MicroHTTPDContext>.fromOpaque(cls).takeUnretainedValue()
        let method = method.map { String(cString: $0) } ?? ""
        var headers = [("Cache-Control", "no-store"), ("Connection", "close")]
        let response: HTTPServer.Response
        if method != "GET" && method != "HEAD" {
            response = .init(status: 405, body: "method not allowed; use GET or HEAD\n")
            headers.append(("Allow", "GET, HEAD"))
        } else if announcesBody(connection) {
            response = .init(status: 413, body: "a request body is not accepted here\n")
        } else {
            response = context.handler(url.map { String(cString: $0) } ?? "/")
        }
        return queue(response, headers: headers, on: connection)
    }

    /// Tracks connections for their deadline (`MHD_OPTION_NOTIFY_CONNECTION`). The daemon reports a connection
    /// closed before it closes the socket.
    static let notifyConnection: MHD_NotifyConnectionCallback = { cls, connection, _, code in
        guard let cls, let connection else { return }
        let context = Unmanaged<MicroHTTPDContext>.fromOpaque(cls).takeUnretainedValue()
        let key = UInt(bitPattern: Int(bitPattern: connection))
        switch code {
        case .CONNECTION_NOTIFY_STARTED: context.deadlines.opened(key, fd: cmhd_connection_fd(connection))
        case .CONNECTION_NOTIFY_CLOSED: context.deadlines.closed(key)
        @unknown default: break
        }
    }

    /// Formats a daemon message (`MHD_OPTION_EXTERNAL_LOGGER`) and hands it to the context.
    static let log: MHD_LogCallback = { cls, format, arguments in
        guard let cls, let format, let arguments else { return }
        var buffer = [CChar](repeating: 0, count: 512)
        _ = vsnprintf(&buffer, buffer.count, format, arguments)
        let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        Unmanaged<MicroHTTPDContext>.fromOpaque(cls).takeUnretainedValue()
            .log(message.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    // MARK: - Helpers

    /// Whether the request says a body follows (`Content-Length` other than 0, or `Transfer-Encoding`).
    private static func announcesBody(_ connection: OpaquePointer) -> Bool {
        if MHD_lookup_connection_value(connection, .HEADER_KIND, "Transfer-Encoding") != nil { return true }
        guard let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length") else {
            return false
        }
        return String(cString: length).trimmingCharacters(in: .whitespaces) != "0"
    }

    /// Queues `response` (body copied by the daemon) with its content type and `headers`.
    private static func queue(
        _ response: HTTPServer.Response, headers: [(String, String)], on connection: OpaquePointer
    ) -> MHD_Result {
        var body = Array(response.body.utf8)
        let created = body.withUnsafeMutableBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, bytes.baseAddress, .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for (name, value) in [("Content-Type", response.contentType)] + headers {
            _ = MHD_add_response_header(created, name, value)
        }
        return MHD_queue_response(connection, UInt32(clamping: response.status), created)
    }
}
