import Essentials
import HTTPServer
import IngestAuth
import Observability
import Producer
import Synchronization

/// A request whose records are handed to the producer, waiting for every delivery report — or for its deadline,
/// whichever comes first; the first decides the one answer. 202 with the receipt only when every record was
/// acknowledged; else 503 with `Retry-After` (a retry is harmless: the version rule makes re-deliveries no-ops).
final class PendingPublish: Sendable {
    /// The request's `Idempotency-Key` reservation, completed with the receipt or abandoned.
    struct Reservation: Sendable {
        var table: IdempotencyTable
        var key: IdempotencyTable.Key
        var fingerprint: [UInt8]
    }

    /// Until the answer is given: taken by the first of the delivery reports and the deadline, so the request's
    /// admission (its share of the bounds) is not held past its answer while librdkafka still owns the records.
    private let answer: Mutex<IngestAnswer?>
    private let reservation: Reservation?
    private let topic: String

    init(answer: IngestAnswer, reservation: Reservation?, topic: String) {
        self.answer = Mutex(answer)
        self.reservation = reservation
        self.topic = topic
    }

    /// Every delivery report arrived (on the producer's poll thread).
    func delivered(_ results: [PublishResult]) {
        var receipt = IngestReceipt(topic: topic, partitions: [], offsets: [])
        receipt.partitions.reserveCapacity(results.count)
        receipt.offsets.reserveCapacity(results.count)
        var failed = 0
        for result in results {
            guard case .acknowledged(let partition, let offset) = result else {
                failed += 1
                continue
            }
            receipt.partitions.append(partition)
            receipt.offsets.append(offset)
        }
        guard let answer = claim() else { return }
        if failed == 0 {
            if let reservation {
                let evicted = reservation.table.complete(
                    reservation.key, fingerprint: reservation.fingerprint, receipt: receipt)
                if evicted > 0 { answer.metrics.increment(.ingestIdempotencyEvictions, by: Double(evicted)) }
            }
            answer.metrics.increment(.ingestRecordsAccepted, label: answer.tenant, by: Double(results.count))
            answer.send(receipt.response())
            return
        }
        reservation.map { $0.table.abandon($0.key) }
        answer.metrics.increment(
            .ingestRecordsRejected, labels: "not-acknowledged", answer.tenant, by: Double(results.count))
        answer.metrics.increment(.ingestUnavailable, label: "not-acknowledged")
        answer.send(
            IngestProblem.unavailable(
                "\(failed) of \(results.count) record(s) were not acknowledged by the broker; retry the same request "
                    + "(records delivered twice are harmless)"
            ).response)
    }

    /// The request deadline passed first.
    func expire() {
        guard let answer = claim() else { return }
        reservation.map { $0.table.abandon($0.key) }
        answer.metrics.increment(.ingestUnavailable, label: "deadline")
        answer.send(
            IngestProblem.unavailable(
                "the broker did not acknowledge every record within the request deadline; retry the same request "
                    + "(records delivered twice are harmless)"
            ).response)
    }

    /// The answer to give, for the first caller only.
    private func claim() -> IngestAnswer? {
        answer.withLock { $0.take() }
    }
}

/// Sends a POST's one answer through its responder, counts it (the request by status, its duration) and logs a
/// refusal with the tenant (``IngestRequestLog``).
struct IngestAnswer: Sendable {
    let responder: HTTPServer.Responder
    let admission: IngestAdmission
    let metrics: Metrics
    let log: IngestRequestLog

    /// The tenant of the request's credential.
    var tenant: String { admission.scope.tenant }

    func send(_ response: HTTPServer.Response) {
        let seconds = (ContinuousClock.now - admission.started).seconds
        metrics.increment(.ingestRequests, label: String(response.status))
        metrics.observe(.ingestRequestDuration, seconds)
        log.answered(status: response.status, tenant: tenant, seconds: seconds)
        responder.send(response)
    }
}
