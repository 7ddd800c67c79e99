import DailyValueContract
import ObservationMapping

@testable import WorkerCore

extension BatchProcessor {
    /// The built-in catalog's decoder, a mapper with a fixed test id key, and dead letters for topic `t.dlq`: the
    /// processor the tests that drive batches into a real store use.
    static func forTests() throws -> BatchProcessor {
        BatchProcessor(
            decoder: DailyValueDecoder(),
            mapper: try ObservationMapper(configuration: .init(idKey: Array("0123456789abcdef".utf8))),
            deadLetter: DeadLetter(topic: "t.dlq", group: "g", workerID: "w", workerVersion: "1"))
    }
}
