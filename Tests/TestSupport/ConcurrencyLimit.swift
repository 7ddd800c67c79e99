import Synchronization

/// Runs at most `limit` bodies at once; the others wait in arrival order without holding a thread.
///
/// Re-entrant: a body (or a child task of it) that asks for a slot again runs at once, so nesting cannot deadlock.
public final class ConcurrencyLimit: Sendable {
    @TaskLocal private static var heldLimits: Set<ObjectIdentifier> = []

    private let limit: Int
    private let state = Mutex<(running: Int, waiting: [CheckedContinuation<Void, Never>])>((0, []))

    /// A limit of `limit` (at least 1) bodies at once.
    public init(limit: Int) { self.limit = max(1, limit) }

    /// Runs `body` once a slot is free, and frees it afterwards on every path.
    public func run<Result>(_ body: () async throws -> Result) async throws -> Result {
        let me = ObjectIdentifier(self)
        if Self.heldLimits.contains(me) { return try await body() }
        await acquire()
        do {
            let result = try await Self.$heldLimits.withValue(Self.heldLimits.union([me])) { try await body() }
            release()
            return result
        } catch {
            release()
            throw error
        }
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                guard state.running < limit else {
                    state.waiting.append(continuation)
                    return false
                }
                state.running += 1
                return true
            }
            if now { continuation.resume() }
        }
    }

    private func release() {
        // A waiter takes the freed slot over: `running` stays as it is.
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
