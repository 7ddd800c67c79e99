import Dispatch
import Foundation
import Synchronization

/// A single-consumer async channel with a capacity: `send` suspends while full, `receive` can time out.
///
/// It connects the consumer's event sequence to the batching loop without unbounded buffering, and gives the
/// loop a wake-up when no event arrives (to flush a partial batch after `batch-ms`).
final class BoundedChannel<Element: Sendable>: Sendable {
    enum Received {
        case element(Element)
        case timedOut
        case finished
    }

    private struct State {
        var buffer: [Element] = []
        var head = 0
        var finished = false
        var receiver: CheckedContinuation<Received, Never>?
        var receiverID = 0
        var senders: [CheckedContinuation<Void, Never>] = []
        var count: Int { buffer.count - head }
    }

    private enum SendStep {
        case done(CheckedContinuation<Received, Never>?)
        case wait
    }

    private let capacity: Int
    private let state = Mutex(State())
    private let timerQueue = DispatchQueue(label: "dvp.channel.timer")

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Appends an element, suspending while the channel is full. Elements sent after `finish()` are dropped.
    func send(_ element: Element) async {
        while true {
            let step: SendStep = state.withLock { s in
                if s.finished { return .done(nil) }
                if s.count >= capacity { return .wait }
                if let receiver = s.receiver {
                    s.receiver = nil
                    return .done(receiver)
                }
                s.buffer.append(element)
                return .done(nil)
            }
            switch step {
            case .done(let receiver):
                receiver?.resume(returning: .element(element))
                return
            case .wait:
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { s -> Bool in
                        if s.finished || s.count < capacity { return true }
                        s.senders.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    /// Ends the channel: buffered elements are still received, then `.finished`.
    func finish() {
        let (receiver, senders) = state.withLock { s in
            s.finished = true
            let r = s.count == 0 ? s.receiver : nil
            if r != nil { s.receiver = nil }
            let waiting = s.senders
            s.senders = []
            return (r, waiting)
        }
        receiver?.resume(returning: .finished)
        senders.forEach { $0.resume() }
    }

    /// The next element, or `.timedOut` once `timeout` passes without one, or `.finished`.
    func receive(timeout: Duration) async -> Received {
        await withCheckedContinuation { continuation in
            let (immediate, waker, id) = state.withLock { s -> (Received?, CheckedContinuation<Void, Never>?, Int) in
                if s.count > 0 {
                    let element = s.buffer[s.head]
                    s.head += 1
                    if s.head > 1024 && s.head * 2 > s.buffer.count {
                        s.buffer.removeFirst(s.head)
                        s.head = 0
                    }
                    let waker = s.senders.isEmpty ? nil : s.senders.removeFirst()
                    return (.element(element), waker, 0)
                }
                if s.finished { return (.finished, nil, 0) }
                s.receiverID += 1
                s.receiver = continuation
                return (nil, nil, s.receiverID)
            }
            waker?.resume()
            if let immediate {
                continuation.resume(returning: immediate)
                return
            }
            let nanos = Int(timeout.components.seconds) * 1_000_000_000 + Int(timeout.components.attoseconds / 1_000_000_000)
            timerQueue.asyncAfter(deadline: .now() + .nanoseconds(max(0, nanos))) { [self] in
                let expired = state.withLock { s -> CheckedContinuation<Received, Never>? in
                    guard s.receiverID == id, let r = s.receiver else { return nil }
                    s.receiver = nil
                    return r
                }
                expired?.resume(returning: .timedOut)
            }
        }
    }
}
