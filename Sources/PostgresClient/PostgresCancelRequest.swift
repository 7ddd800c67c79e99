import CPostgres
import Dispatch
import Essentials

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Asks the server to cancel a connection's running statement (`PQcancel`), waiting for it at most a bound.
///
/// `PQcancel` blocks: it opens a connection of its own to the server (the postmaster, which is alive even when the
/// backend is frozen) and, in libpq 15, has no timeout. It therefore runs on a detached thread; when the bound
/// passes first the caller goes on and the thread finishes (or stays blocked in the kernel) on its own.
enum PostgresCancelRequest {
    /// What became of the request, for the error message of the timed-out call.
    enum Outcome: Equatable, CustomStringConvertible {
        case sent
        case failed(String)
        case timedOut

        var description: String {
            switch self {
            case .sent: "cancel request sent"
            case .failed(let reason): "cancel request failed: \(reason)"
            case .timedOut: "cancel request not answered in time"
            }
        }
    }

    /// Sends a cancel request for the statement running on `connection` (a `PGconn*`), waiting at most `timeout`.
    static func send(for connection: OpaquePointer, timeout: Duration) -> Outcome {
        guard let cancel = PQgetCancel(connection) else { return .failed("no cancel key (connection not open)") }
        let request = Request(cancel)
        let done = DispatchSemaphore(value: 0)
        OSThread.start(name: "dvp.postgres-cancel") {
            request.run()
            done.signal()
        }
        guard done.wait(timeout: .now() + .nanoseconds(Int(timeout.nanoseconds))) == .success else { return .timedOut }
        return request.outcome
    }

    /// One `PGcancel*`, used by the cancel thread only and freed by it.
    ///
    /// `@unchecked Sendable`: the handle is touched only in ``run()`` on the cancel thread (`PQcancel` and
    /// `PQfreeCancel` are documented as thread-safe for a `PGcancel` of its own); the outcome is written there before
    /// the semaphore is signalled and read by the caller only after a successful wait, which orders the accesses.
    private final class Request: @unchecked Sendable {
        private let handle: OpaquePointer
        private(set) var outcome = Outcome.timedOut

        init(_ handle: OpaquePointer) { self.handle = handle }

        func run() {
            var message = [CChar](repeating: 0, count: 256)
            let ok = PQcancel(handle, &message, Int32(message.count))
            PQfreeCancel(handle)
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let reason = text.trimmingWhitespace()
            outcome = ok == 1 ? .sent : .failed(reason)
        }
    }
}
