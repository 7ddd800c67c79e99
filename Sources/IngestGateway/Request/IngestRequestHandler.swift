import Dispatch
import Essentials
import HTTPServer
import IngestAuth
import Observability
import Producer

/// `POST /v1/daily-values` once its head was admitted: the body becomes records, the `Idempotency-Key` is checked,
/// every record is validated, and only then is anything published; the answer comes when the broker acknowledged
/// every record (202) or not (503), at the latest at the request deadline.
///
/// Runs on an HTTP server thread and returns as soon as the records are handed to the producer: no thread waits for
/// the broker (the responder answers from the producer's poll thread or the deadline queue).
struct IngestRequestHandler: Sendable {
    let publisher: DailyValuePublisher
    let limits: IngestConfiguration.Limits
    let idempotency: IdempotencyTable
    let metrics: Metrics
    let log: IngestRequestLog
    /// Where request deadlines fire (one serial queue for every request).
    let deadlines: DispatchQueue
    /// The erasure ledger (`--erasure-store`), nil without one.
    let erasure: IngestErasureLedger?

    func handle(_ request: HTTPServer.Request, admission: IngestAdmission, responder: HTTPServer.Responder) {
        let answer = IngestAnswer(responder: responder, admission: admission, metrics: metrics, log: log)
        metrics.increment(.ingestReceivedBytes, by: Double(request.body.count))
        var reservation: PendingPublish.Reservation?
        do throws(IngestProblem) {
            // While a gzip body inflates, both it and its inflated bytes are held: the latter get what is left.
            let compressed = admission.format.gzip ? request.body.count : 0
            let body = try IngestBody(
                request.body, format: admission.format, maxBytes: limits.maxBodyBytes, maxRecords: limits.maxRecords,
                inflateRoom: admission.room - compressed, idleRoom: admission.bound - compressed)
            metrics.increment(.ingestDecodedBytes, by: Double(body.decodedBytes))
            let records = try IngestRecords(body, publisher: publisher)
            // Held now: the compressed body, the inflated bytes (as the body the records are ranges of, or as the
            // records' copies once split: the same bytes, counted once) and each record's own structures.
            let overhead = records.count * IngestBody.bytesPerRecord
            let held = compressed + records.decodedBytes + overhead
            guard held <= admission.bound else {
                throw .tooLarge(
                    "the body and its \(records.count) records take \(held) bytes, more than the gateway holds at once "
                        + "(--max-in-flight-bytes \(admission.bound)); send fewer records per request")
            }
            if let bound = admission.hold(bytes: held) {
                metrics.increment(.ingestThrottled, label: bound.rawValue)
                throw .tooManyRequests("the gateway holds as many body bytes as it may (\(bound.option))")
            }
            if let key = try IngestRequestHandler.idempotencyKey(request.headers) {
                let fingerprint = records.fingerprint(framing: admission.format.framing)
                let tableKey = IdempotencyTable.Key(scope: admission.scope, key: key)
                switch idempotency.start(tableKey, fingerprint: fingerprint) {
                case .fresh:
                    reservation = PendingPublish.Reservation(
                        table: idempotency, key: tableKey, fingerprint: fingerprint)
                case .inFlight:
                    throw IngestProblem(
                        status: 409, slug: "idempotency-in-flight", title: "Conflict",
                        detail: "a request with this Idempotency-Key and body is still being handled; retry later",
                        headers: ["Retry-After": "1"])
                case .differentBody:
                    throw IngestProblem(
                        status: 422, slug: "idempotency-key-reused", title: "Unprocessable Content",
                        detail: "this Idempotency-Key was used with a different body; use a new key for new data")
                case .replay(let receipt):
                    metrics.increment(.ingestIdempotentReplays)
                    return answer.send(receipt.response(replayed: true))
                }
            }
            if let problem = try IngestValidation.problem(records, scope: admission.scope, erasure: erasure) {
                throw problem
            }
            publish(records.batch(publisher: publisher), answer: answer, reservation: reservation)
            // From here the records are held (by the producer), not the body (released on return).
            admission.hold(bytes: records.recordBytes + overhead)
        } catch {
            reservation.map { $0.table.abandon($0.key) }
            if let reason = Self.rejectionReason(error), !error.errors.isEmpty {
                metrics.increment(
                    .ingestRecordsRejected, labels: reason, admission.scope.tenant, by: Double(error.errors.count))
            }
            answer.send(error.response)
        }
    }

    /// Hands the validated batch to the producer and arms the deadline; nothing is published for a request whose
    /// deadline passed already (a body that came slowly).
    private func publish(_ batch: PreparedBatch, answer: IngestAnswer, reservation: PendingPublish.Reservation?) {
        let pending = PendingPublish(answer: answer, reservation: reservation, topic: publisher.configuration.topic)
        let remaining = limits.requestTimeout - (ContinuousClock.now - answer.admission.started)
        guard remaining > .zero else { return pending.expire() }
        deadlines.asyncAfter(deadline: .now() + max(remaining.seconds, 0)) { [weak pending] in pending?.expire() }
        publisher.send(batch) { results in pending.delivered(results) }
    }

    // MARK: - Helpers

    /// The `Idempotency-Key`: 1–255 visible ASCII characters (a quoted string is unquoted); nil when absent.
    /// - Throws: ``IngestProblem`` 400 for a malformed key (never echoed).
    static func idempotencyKey(_ headers: HTTPServer.Headers) throws(IngestProblem) -> String? {
        guard var key = headers["Idempotency-Key"] else { return nil }
        if key.count >= 2, key.hasPrefix("\""), key.hasSuffix("\"") { key = String(key.dropFirst().dropLast()) }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .malformed("the Idempotency-Key must be 1 to 255 visible ASCII characters")
        }
        return key
    }

    /// The `dvp_ingest_records_rejected_total` reason of a refused request's records.
    private static func rejectionReason(_ problem: IngestProblem) -> String? {
        switch problem.status {
        case 400: "malformed"
        case 403: problem.slug == "patient-erased" ? "erased" : "out-of-scope"
        case 422: "invalid"
        default: nil
        }
    }
}
