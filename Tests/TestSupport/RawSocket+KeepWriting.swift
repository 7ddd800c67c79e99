import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension RawSocket {
    /// How a client that kept writing its body fared.
    public struct KeptWriting: Sendable {
        /// The response it read (nil when none arrived whole).
        public var response: RawHTTPResponse?
        /// Whether reading ended in a reset rather than the server's end-of-file.
        public var reset: Bool
        /// Body bytes the server took.
        public var bodyBytesSent: Int
        /// From the first byte sent to the server's end-of-file or reset (nil when neither came in time).
        public var endOfAnswerAfter: Duration?
        /// From the first byte sent to the send that failed because the server had closed (nil when none failed).
        public var sendFailedAfter: Duration?
    }

    /// Sends `head`, then `bodyBytes` body bytes, reading only after that, as a client blocked in writing a big
    /// upload does: an answer the server sent early is read only if the connection survived the upload. With
    /// `readWhileWriting` it reads all along too, and writes on after the answer and the server's end-of-file
    /// came. It stops writing at the end of the body or when a send fails, and stops when both directions are done
    /// or `timeout` passed.
    public func keepWriting(head: [UInt8], bodyBytes: Int, readWhileWriting: Bool = false, timeout: Duration)
        -> KeptWriting
    {
        let started = ContinuousClock.now
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var pending = head[...]
        var headLeft = head.count
        var sentBody = 0
        let filler = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var writing = true
        var outcome = KeptWriting(response: nil, reset: false, bodyBytesSent: 0)
        while ContinuousClock.now - started < timeout, writing || outcome.endOfAnswerAfter == nil {
            let reading = (!writing || readWhileWriting) && outcome.endOfAnswerAfter == nil
            var pfd = pollfd(fd: fd, events: (reading ? Int16(POLLIN) : 0) | (writing ? Int16(POLLOUT) : 0), revents: 0)
            guard poll(&pfd, 1, 50) > 0 else { continue }
            if reading, pfd.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n > 0 {
                    received += buffer[..<n]
                } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                    outcome.reset = n < 0 && errno == ECONNRESET
                    outcome.endOfAnswerAfter = ContinuousClock.now - started
                }
            }
            guard writing, pfd.revents & Int16(POLLOUT | POLLHUP | POLLERR) != 0 else { continue }
            if pending.isEmpty {
                let left = bodyBytes - sentBody
                guard left > 0 else {
                    writing = false
                    continue
                }
                pending = filler[..<min(filler.count, left)]
            }
            let n = pending.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                let ofHead = min(n, headLeft)
                headLeft -= ofHead
                sentBody += n - ofHead
                pending = pending.dropFirst(n)
            } else if errno != EAGAIN && errno != EINTR {
                writing = false
                outcome.sendFailedAfter = ContinuousClock.now - started
            }
        }
        outcome.bodyBytesSent = sentBody
        outcome.response = Self.isComplete(received) ? RawHTTPResponse(received) : nil
        return outcome
    }

    /// Whether `bytes` hold a whole response: its head and as many body bytes as its `Content-Length` says.
    private static func isComplete(_ bytes: [UInt8]) -> Bool {
        guard let response = RawHTTPResponse(bytes), let length = response.headers["content-length"].flatMap(Int.init)
        else { return false }
        return response.body.count >= length
    }
}
