import CMicroHTTPD
import Essentials

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The plain C functions libmicrohttpd calls; each finds its ``MicroHTTPDContext`` in the `cls` argument (see the
/// lifetime rule there) and its request's ``MicroHTTPDRequest`` in `*req_cls` (lifetime rule there). They run on
/// the daemon's threads.
enum MicroHTTPDCallbacks {
    /// `MHD_OPTION_URI_LOG_CALLBACK`: called with the raw request target as soon as the request line arrived;
    /// what it returns becomes the request's `*req_cls`.
    typealias URILogCallback =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?
        ) -> UnsafeMutableRawPointer?

    /// Starts a request's state with its raw target (retained; released in ``requestCompleted``).
    static let requestStarted: URILogCallback = { cls, uri, connection in
        guard let cls else { return nil }
        let context = Unmanaged<MicroHTTPDContext>.fromOpaque(cls).takeUnretainedValue()
        let state = MicroHTTPDRequest(target: uri.map { String(cString: $0) } ?? "/", context: context)
        state.closesConnection = connection.map { context.beginRequest(on: key($0)) } ?? true
        return Unmanaged.passRetained(state).toOpaque()
    }

    /// Releases a request's state, however the request ended; a kept-alive connection now waits for its next
    /// request (``HTTPConnectionDeadlines/awaitingNextRequest(_:)``).
    static let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, requestContext, _ in
        guard let requestContext, let state = requestContext.pointee else { return }
        requestContext.pointee = nil
        let request = Unmanaged<MicroHTTPDRequest>.fromOpaque(state)
        if let cls, let connection, !request.takeUnretainedValue().closesConnection {
            Unmanaged<MicroHTTPDContext>.fromOpaque(cls).takeUnretainedValue().deadlines
                .awaitingNextRequest(key(connection))
        }
        request.release()
    }

    /// Called once the head has arrived, once per piece of body, and once when the request is complete (and once
    /// more after a suspended connection was resumed with its answer).
    ///
    /// First call: the head check (an answer now, or the request's ticket), then the announced body size (413 at
    /// once when over the limit; an answer now makes the daemon skip the body and close the connection after the
    /// response). Body calls: the piece is kept while the body is within the limit (and its ticket's
    /// ``HTTPServer/BodyMeter`` accepts it), dropped after. Last call: the meter's refusal, 413 for a body past the
    /// limit, else the handler runs with a responder: an answer given before it returns is
    /// queued at once, else the connection is suspended until the answer resumes it, and the call after the resume
    /// queues that answer.
    static let access: MHD_AccessHandlerCallback = { cls, connection, _, method, _, data, size, requestContext in
        // `*req_cls` is always set: the URI logger runs first for every request.
        guard let cls, let connection, let size, let stateAddress = requestContext?.pointee else { return .NO }
        let context = Unmanaged<MicroHTTPDContext>.fromOpaque(cls).takeUnretainedValue()
        let state = Unmanaged<MicroHTTPDRequest>.fromOpaque(stateAddress).takeUnretainedValue()
        guard let head = state.head else {
            let head = MicroHTTPDRequest.head(
                of: connection, method: method.map { String(cString: $0) } ?? "", target: state.target)
            state.head = head
            context.deadlines.headArrived(key(connection))
            let early: HTTPServer.Response
            switch context.admit(head) {
            case .respond(let response): early = response
            case .proceed(let ticket):
                state.ticket = ticket
                guard MicroHTTPDRequest.announcesBody(head, over: context.maxBodyBytes) else { return .YES }
                early = tooLarge(context.maxBodyBytes)
            }
            // A request without a body is answered on the next call, once the daemon has read it whole: an answer
            // queued from the head makes the daemon close the connection, which a kept-alive one need not.
            guard MicroHTTPDRequest.announcesBody(head, over: 0) else {
                state.refusal = early
                return .YES
            }
            // Closed after an answer given before the announced body: linger, or the client still sending gets a
            // reset instead of the answer.
            context.answeredBeforeBody(key(connection))
            state.closesConnection = true
            return MicroHTTPDResponse.queue(early, on: connection, closing: true)
        }
        if size.pointee > 0 {
            context.deadlines.bodyReceived(key(connection), bytes: size.pointee)
            state.receive(UnsafeRawBufferPointer(start: data, count: size.pointee), limit: context.maxBodyBytes)
            size.pointee = 0
            return .YES
        }
        context.deadlines.bodyEnded(key(connection))
        if let id = state.responderID {
            // Resumed: the answer is ready (nothing else resumes a connection).
            guard let answer = context.responders.takeAnswer(id) else { return .YES }
            return MicroHTTPDResponse.queue(answer, on: connection, closing: state.closesConnection)
        }
        if let refusal = state.refusal {
            return MicroHTTPDResponse.queue(refusal, on: connection, closing: state.closesConnection)
        }
        if state.overLimit {
            let meter = state.ticket as? any HTTPServer.BodyMeter
            let answer = meter?.bodyOverLimit(context.maxBodyBytes) ?? tooLarge(context.maxBodyBytes)
            return MicroHTTPDResponse.queue(answer, on: connection, closing: state.closesConnection)
        }
        var request = head
        request.body = state.body
        state.body = []
        let (id, responder) = context.responders.begin()
        state.responderID = id
        context.respond(request, state.ticket ?? (), responder)
        guard let answer = context.responders.handlerReturned(id, connection: connection) else { return .YES }
        return MicroHTTPDResponse.queue(answer, on: connection, closing: state.closesConnection)
    }

    /// Tracks connections for their deadline (`MHD_OPTION_NOTIFY_CONNECTION`). The daemon reports a connection
    /// closed before it closes the socket.
    static let notifyConnection: MHD_NotifyConnectionCallback = { cls, connection, _, code in
        guard let cls, let connection else { return }
        let context = Unmanaged<MicroHTTPDContext>.fromOpaque(cls).takeUnretainedValue()
        let key = key(connection)
        switch code {
        case .CONNECTION_NOTIFY_STARTED: context.deadlines.opened(key, fd: cmhd_connection_fd(connection))
        case .CONNECTION_NOTIFY_CLOSED:
            context.deadlines.closed(key)
            context.connectionClosed(key)
            // The daemon closes its descriptor after this returns; a duplicate keeps the socket open to linger.
            if context.closingAnsweredBeforeBody(key) {
                let fd = cmhd_connection_fd(connection)
                let lingering = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1
                if lingering >= 0 { context.lingering.linger(lingering) }
            }
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
            .log(message.trimmingWhitespace())
    }

    // MARK: - Helpers

    /// A connection's key in the context's tables: its address, unique while it is open.
    private static func key(_ connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: connection))
    }

    private static func tooLarge(_ limit: Int) -> HTTPServer.Response {
        let rule = limit == 0 ? "a request body is not accepted here" : "the request body is over \(limit) bytes"
        return HTTPServer.Response(status: 413, body: rule + "\n")
    }
}
