import DailyValueContract
import IngestAuth
import Producer

/// Everything decided about a request's records before anything is published: each one decoded by the workers'
/// decoder (``IngestRecords``: in one pass, or record by record as `producer publish` does), then the credential's
/// scope. One failing record refuses the whole request.
enum IngestValidation {
    /// Why the prepared records cannot be published, or nil when every one can.
    ///
    /// In this order: records that are not well-formed JSON → 400 (where, per record); records whose patient is
    /// outside `scope` → 403 (by position, never the patient id); records of a person the erasure ledger refuses →
    /// 403 `patient-erased` (by position, never the patient id); records the decoder refuses → 422 (position,
    /// pointer and the decoder's reason for each).
    /// - Throws: ``IngestProblem`` 503 when the erasure ledger cannot be checked.
    static func problem(_ records: IngestRecords, scope: IngestScope, erasure: IngestErasureLedger?)
        throws(IngestProblem) -> IngestProblem?
    {
        let rejected = records.rejectedLines
        let malformed = rejected.filter { $0.error.kind == .invalidJSON }
        if !malformed.isEmpty {
            let errors = recordErrors(malformed, records)
            return .malformed(
                "\(malformed.count) record(s) are not well-formed JSON; the first is record \(errors[0].index) "
                    + "(line \(errors[0].line)): \(errors[0].reason)",
                errors: errors)
        }
        let outside = records.keyedLines.filter { !scope.allows(patient: $0.patient) }.map(\.position)
        if !outside.isEmpty {
            return IngestProblem(
                status: 403, slug: "patient-out-of-scope", title: "Forbidden",
                detail: "\(outside.count) record(s) name a patient outside this credential's scope; nothing was "
                    + "published",
                errors: zip(outside, records.lines(of: outside)).map { position, line in
                    IngestProblem.RecordError(
                        index: position, line: line, pointer: "/patient", reasonClass: "OutOfScope",
                        reason: "the patient is outside the credential's patient-id prefix")
                })
        }
        if let erasure, let problem = try erased(records, erasure) { return problem }
        guard !rejected.isEmpty else { return nil }
        return IngestProblem(
            status: 422, slug: "invalid-records", title: "Unprocessable Content",
            detail:
                "\(rejected.count) of \(records.count) record(s) break the DailyValue contract; nothing was published",
            errors: recordErrors(rejected, records))
    }

    /// 403 `patient-erased` naming the records (by position) of persons the erasure ledger refuses, or nil.
    private static func erased(_ records: IngestRecords, _ erasure: IngestErasureLedger) throws(IngestProblem)
        -> IngestProblem?
    {
        let keyed = records.keyedLines
        guard let mask = try erasure.refusedMask(keyed.map(\.patient)) else { return nil }
        let refused = zip(keyed, mask).filter(\.1).map(\.0.position)
        guard !refused.isEmpty else { return nil }
        return IngestProblem(
            status: 403, slug: "patient-erased", title: "Forbidden",
            detail: "\(refused.count) record(s) belong to a person who was erased or withdrew consent; nothing was "
                + "published: leave their records out and send the others again",
            errors: zip(refused, records.lines(of: refused)).map { position, line in
                IngestProblem.RecordError(
                    index: position, line: line, pointer: "/patient", reasonClass: "PatientErased",
                    reason: "the person was erased or withdrew consent: the pipeline refuses their events")
            })
    }

    /// The problem document's entry for each refused record, in order.
    private static func recordErrors(_ refused: [(position: Int, error: DailyValueError)], _ records: IngestRecords)
        -> [IngestProblem.RecordError]
    {
        zip(refused, records.lines(of: refused.map(\.position))).map { record, line in
            IngestProblem.RecordError(
                index: record.position, line: line, pointer: IngestProblem.pointer(field: record.error.field),
                reasonClass: record.error.className, reason: record.error.description)
        }
    }
}
