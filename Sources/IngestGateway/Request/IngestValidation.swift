import DailyValueContract
import IngestAuth
import Producer

/// Everything decided about a request's records before anything is published: each one decoded by the workers'
/// decoder (through ``DailyValuePublisher/prepare(lines:)``, the path `producer publish` takes), then the
/// credential's scope. One failing record refuses the whole request.
enum IngestValidation {
    /// Why the prepared records cannot be published, or nil when every one can.
    ///
    /// In this order: records that are not well-formed JSON → 400 (where, per record); records whose patient is
    /// outside `scope` → 403 (by position, never the patient id); records the decoder refuses → 422 (position,
    /// pointer and the decoder's reason for each).
    static func problem(_ records: IngestRecords, scope: IngestScope) -> IngestProblem? {
        let batch = records.batch
        let rejected = batch.rejectedLines
        let malformed = rejected.filter { $0.error.kind == .invalidJSON }
        if !malformed.isEmpty {
            let errors = malformed.map { recordError($0.position, $0.error, records) }
            return .malformed(
                "\(malformed.count) record(s) are not well-formed JSON; the first is record \(errors[0].index) "
                    + "(line \(errors[0].line)): \(errors[0].reason)",
                errors: errors)
        }
        let outside = batch.keyedLines.filter { !scope.allows(patient: String(decoding: $0.key, as: UTF8.self)) }
        if !outside.isEmpty {
            return IngestProblem(
                status: 403, slug: "patient-out-of-scope", title: "Forbidden",
                detail: "\(outside.count) record(s) name a patient outside this credential's scope; nothing was "
                    + "published",
                errors: outside.map { line in
                    IngestProblem.RecordError(
                        index: line.position, line: records.line(of: line.position), pointer: "/patient",
                        reasonClass: "OutOfScope", reason: "the patient is outside the credential's patient-id prefix")
                })
        }
        guard !rejected.isEmpty else { return nil }
        return IngestProblem(
            status: 422, slug: "invalid-records", title: "Unprocessable Content",
            detail:
                "\(rejected.count) of \(batch.count) record(s) break the DailyValue contract; nothing was published",
            errors: rejected.map { recordError($0.position, $0.error, records) })
    }

    private static func recordError(_ position: Int, _ error: DailyValueError, _ records: IngestRecords)
        -> IngestProblem.RecordError
    {
        IngestProblem.RecordError(
            index: position, line: records.line(of: position), pointer: IngestProblem.pointer(field: error.field),
            reasonClass: error.className, reason: error.description)
    }
}
