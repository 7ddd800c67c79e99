import Dispatch
import Essentials
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs blocking librdkafka calls on a thread of their own, never on Swift's cooperative pool, bridged with a
/// continuation. With a deadline it is the close watchdog: if `body` does not return in time the caller resumes
/// with `nil` and the thread is abandoned (it finishes, or hangs, on its own).
enum RDKafkaBlocking {
    static func run<T: Sendable>(_ name: String, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            OSThread.start(name: name) { continuation.resume(returning: body()) }
        }
    }

    static func run<T: Sendable>(_ name: String, deadline: Duration, _ body: @escaping @Sendable () -> T) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let once = OnceContinuation(continuation)
            OSThread.start(name: name) { once.resume(body()) }
            DispatchQueue.global().asyncAfter(deadline: .now() + deadline.seconds) { once.resume(nil) }
        }
    }
}

/// Resumes a continuation at most once, whichever of the racing parties comes first.
private final class OnceContinuation<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, Never>?>

    init(_ continuation: CheckedContinuation<T, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: T) {
        let taken = continuation.withLock { slot in
            defer { slot = nil }
            return slot
        }
        taken?.resume(returning: value)
    }
}
