import Foundation

/// Runs `body(index)` on `count` threads of their own at once, and returns when all ended. The awaiting task's
/// thread is released meanwhile: no cooperative thread blocks.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                body(index)
                group.leave()
            }
            thread.name = "verify-\(index)"
            thread.start()
        }
        group.notify(queue: .global()) { continuation.resume() }
    }
}
