import CMicroHTTPD

/// Turns an ``HTTPServer/Response`` into a libmicrohttpd response (`struct MHD_Response *`, body copied) and
/// queues it; the only code that creates one.
enum MicroHTTPDResponse {
    /// Queues `response` on `connection`, or a plain 500 when it cannot be sent as it is (a status outside
    /// 200...999, a server-owned or malformed header field).
    /// `closing` adds `Connection: close` (the connection ends after this answer); else it is kept alive when the
    /// client allows it.
    static func queue(_ response: HTTPServer.Response, on connection: OpaquePointer, closing: Bool) -> MHD_Result {
        var status = response.status
        var created = make(response, closing: closing)
        if created == nil {
            status = 500
            created = make(
                HTTPServer.Response(status: 500, body: "the response could not be sent as it was\n"), closing: closing)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        return MHD_queue_response(connection, UInt32(status), created)
    }

    /// The daemon's response for `response`, or nil when it is not valid HTTP.
    private static func make(_ response: HTTPServer.Response, closing: Bool) -> OpaquePointer? {
        guard (200...999).contains(response.status),
            !HTTPServer.Response.serverOwnedHeaders.contains(where: response.headers.contains)
        else { return nil }
        var body = response.body
        let created = body.withUnsafeMutableBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, bytes.baseAddress, .RESPMEM_MUST_COPY)
        }
        guard let created else { return nil }
        var fields = response.contentType.map { [(name: "Content-Type", value: $0)] } ?? []
        fields += response.headers.fields
        if !response.headers.contains("Cache-Control") { fields.append((name: "Cache-Control", value: "no-store")) }
        if closing { fields.append((name: "Connection", value: "close")) }
        for field in fields where MHD_add_response_header(created, field.name, field.value) != .YES {
            MHD_destroy_response(created)
            return nil
        }
        return created
    }
}
