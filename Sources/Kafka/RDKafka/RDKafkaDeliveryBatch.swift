import Synchronization

/// The delivery reports of one ``KafkaProducer/send(_:completion:)`` call: collected as they settle, in any order,
/// and handed to the completion once, in the records' order, when the last one settled.
final class RDKafkaDeliveryBatch: Sendable {
    typealias Outcome = RDKafkaDeliveryRegistry.Outcome

    private struct State {
        var outcomes: [Outcome?]
        var remaining: Int
    }

    private let state: Mutex<State>
    private let completion: @Sendable ([Outcome]) -> Void

    init(count: Int, completion: @escaping @Sendable ([Outcome]) -> Void) {
        state = Mutex(State(outcomes: Array(repeating: nil, count: count), remaining: count))
        self.completion = completion
    }

    /// Records the outcome of the record at `index` (the first one counts); the last one calls the completion,
    /// outside the lock.
    func settle(_ index: Int, _ outcome: Outcome) {
        let finished: [Outcome]? = state.withLock { state in
            guard state.outcomes[index] == nil else { return nil }
            state.outcomes[index] = outcome
            state.remaining -= 1
            return state.remaining == 0 ? state.outcomes.map { $0! } : nil
        }
        if let finished { completion(finished) }
    }
}
