import Dispatch
import TestSupport
import Testing

/// A POST the test holds open on a raw connection: its head and part of its body, then `trickle` (one more body byte,
/// or a 1-byte chunk) each second until released, so that the gateway's 5 s idle timeout, which closes a connection
/// that sends nothing even mid-body, cannot release it while the test needs it held (the gateway must run with
/// `--min-body-rate 0` too, else the slow-body cut-off does, and a `--request-timeout` longer than the hold, else the
/// connection's deadline does).
final class HeldRequest: @unchecked Sendable {
    private let timer: any DispatchSourceTimer

    /// Connects to the gateway on `port`, sends `opening` and then `trickle` each second.
    init(port: Int, opening: [UInt8], trickle: [UInt8]) throws {
        let socket = try #require(RawSocket(host: "127.0.0.1", port: port))
        socket.send(opening)
        // The timer's handler is the socket's only owner: the socket closes when the cancelled timer lets it go.
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "held-request"))
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { socket.send(trickle) }
        timer.resume()
    }

    deinit {
        timer.setEventHandler {}
        timer.cancel()
    }
}
