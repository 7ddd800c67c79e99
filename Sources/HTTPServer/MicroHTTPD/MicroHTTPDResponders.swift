import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The state of every ``HTTPServer/Responder`` of one daemon, under one lock: whether its request's handler is still
/// running, its connection is suspended waiting for the answer, or the answer is ready for the access handler. The
/// only code that suspends or resumes a connection.
///
/// Lifetime rule: a suspended connection is never freed by libmicrohttpd (it is not polled, and it cannot close), so
/// the pointer an entry holds stays valid until this table resumes it; it resumes each connection exactly once, under
/// the lock, and forgets the pointer. Lock order: this lock, then libmicrohttpd's own (`MHD_suspend_connection` and
/// `MHD_resume_connection` take it briefly); libmicrohttpd calls none of our callbacks while holding it.
/// `MHD_stop_daemon` must not meet a suspended connection: ``resumeAll(with:)`` answers every one first and from then
/// on no connection is suspended. Nor may it cut off an answer on its way: ``waitForStopAnswers(grace:)`` waits for
/// every request that reached its handler — answered with its own response (decided before the stop, e.g. a 202 the
/// broker acknowledged) or with the stop's — until it has ended, within the grace.
final class MicroHTTPDResponders: Sendable {
    private enum Entry {
        /// The handler runs; a response given meanwhile waits here and is queued when it returns.
        case handling(HTTPServer.Response?)
        /// The connection is suspended until the answer comes.
        case suspended(Connection)
        /// Resumed with this answer; the access handler queues it when libmicrohttpd calls it again.
        case answered(HTTPServer.Response)
    }

    /// A suspended connection's handle (`struct MHD_Connection *`). `@unchecked Sendable`: it is only passed to
    /// `MHD_resume_connection`, once, under the table's lock, while libmicrohttpd keeps the connection alive (above).
    private struct Connection: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private struct State {
        var nextID: UInt = 1
        var entries: [UInt: Entry] = [:]
        /// Set by ``resumeAll(with:)``: the answer of every request still unanswered from then on.
        var stoppingAnswer: HTTPServer.Response?
        /// Every request given a responder whose state is not released yet: its answer is not yet sent, whether it is
        /// decided or not (``waitForStopAnswers(grace:)`` waits for them).
        var unended: Set<UInt> = []
    }

    private let state = Mutex(State())

    /// A responder for a request whose handler is about to run.
    func begin() -> (id: UInt, responder: HTTPServer.Responder) {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.entries[state.nextID] = .handling(nil)
            state.unended.insert(state.nextID)
            return state.nextID
        }
        return (id, HTTPServer.Responder(id: id, table: self))
    }

    /// Called on the connection's thread when the handler returned: the response to queue now, or nil when the
    /// connection was suspended to wait for it (once the server stops, a request still unanswered gets the stop's
    /// answer).
    func handlerReturned(_ id: UInt, connection: OpaquePointer) -> HTTPServer.Response? {
        state.withLock { state in
            guard case .handling(let ready)? = state.entries[id] else { return nil }
            if let ready {
                state.entries[id] = nil
                return ready
            }
            if let stopping = state.stoppingAnswer {
                state.entries[id] = nil
                return stopping
            }
            MHD_suspend_connection(connection)
            state.entries[id] = .suspended(Connection(pointer: connection))
            return nil
        }
    }

    /// The answer to `id`: kept for the handler's return, or the suspended connection resumed with it. Only the first
    /// answer counts.
    func answer(_ id: UInt, _ response: HTTPServer.Response) {
        state.withLock { state in
            switch state.entries[id] {
            case .handling(nil)?:
                state.entries[id] = .handling(response)
            case .suspended(let connection)?:
                state.entries[id] = .answered(response)
                MHD_resume_connection(connection.pointer)
            case .handling?, .answered?, nil:
                break
            }
        }
    }

    /// The answer of a resumed connection (taken once), for the access handler to queue.
    func takeAnswer(_ id: UInt) -> HTTPServer.Response? {
        state.withLock { state in
            guard case .answered(let response)? = state.entries[id] else { return nil }
            state.entries[id] = nil
            return response
        }
    }

    /// Forgets a request that ended (its state is being released); later answers are ignored.
    func forget(_ id: UInt) {
        state.withLock { state in
            state.entries[id] = nil
            state.unended.remove(id)
        }
    }

    /// Before the daemon stops: every suspended connection is resumed with `response`, and none is suspended again.
    /// An answer already given (resumed and not yet queued, or given while the handler runs) is kept: it is the
    /// request's real answer, and the stop's is only for those that have none.
    func resumeAll(with response: HTTPServer.Response) {
        state.withLock { state in
            state.stoppingAnswer = response
            for (id, entry) in state.entries {
                guard case .suspended(let connection) = entry else { continue }
                state.entries[id] = .answered(response)
                MHD_resume_connection(connection.pointer)
            }
        }
    }

    /// Waits (blocking, polling every 5 ms) until every request that reached its handler has ended — its answer,
    /// its own or the stop's, sent, or its client gone — or `grace` has passed.
    func waitForStopAnswers(grace: Duration) {
        let deadline = ContinuousClock.now + grace
        while state.withLock({ !$0.unended.isEmpty }), ContinuousClock.now < deadline {
            usleep(5_000)
        }
    }

    /// Requests waiting for their answer on a suspended connection.
    var suspendedCount: Int {
        state.withLock { state in
            state.entries.values.reduce(0) { count, entry in
                if case .suspended = entry { return count + 1 }
                return count
            }
        }
    }

    /// The default answer of the requests still waiting when the server stops.
    static let stopping = HTTPServer.Response(
        status: 503, headers: ["Retry-After": "1"], body: "the server is stopping; retry\n")
}
