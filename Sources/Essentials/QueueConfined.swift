import Dispatch

/// A value (a database connection and its state) that is only ever touched on one serial `DispatchQueue`.
///
/// Blocking C calls (`sqlite3_step`, `PQexecParams`) run on that queue, never on Swift's cooperative pool; callers
/// await them through a continuation. `@unchecked Sendable` is sound because `value` is read and written only inside
/// `queue.async` blocks, which the serial queue runs one at a time.
package final class QueueConfined<Value>: @unchecked Sendable {
    private let queue: DispatchQueue
    private var value: Value

    package init(label: String, _ value: Value) {
        self.queue = DispatchQueue(label: label)
        self.value = value
    }

    /// Runs `body` on the queue with exclusive access to the value.
    package func run<Result: Sendable>(
        _ body: @escaping @Sendable (inout Value) throws -> Result
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Swift.Result { try body(&self.value) })
            }
        }
    }
}
