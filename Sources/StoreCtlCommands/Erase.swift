import CommandLineOptions
import DailyValueContract
import Essentials
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `erase`: erases persons, records their consent withdrawal, or lifts it (docs/PRIVACY.md). Exit 0 when complete,
/// 1 when something remains (said on stderr; a rerun finishes it), 2 for usage.
enum Erase {
    static let options: [CommandLineOption] =
        ParsedCommandLine.storeOptions + ParsedCommandLine.erasureKeyOptions + [
            .value("--patient", "ID", repeatable: true, help: "a patient id (repeatable)"),
            .value("--patient-file", "FILE", help: "patient ids, one per line (blank lines and # comments skipped)"),
            .value(
                "--reference", "TEXT",
                help: "the request's reference, e.g. a ticket number (required; never the patient id)"),
            .value(
                "--mode", "MODE",
                help: """
                    erase (default): delete everything stored and refuse every later event, for good;
                    withdraw: keep what is stored, refuse new events; lift: end a withdrawal
                    """),
            .flag("--dry-run", help: "count what would be deleted; change nothing"),
            .value(
                "--reapply-ledger", "FILE",
                help: "re-apply the entries of `storectl erasures --json` (e.g. after restoring a backup)"),
        ] + KafkaRetention.options

    @Sendable static func run(_ arguments: ParsedCommandLine) async throws -> Int32 {
        try arguments.expectPositionals(0, "")
        let requests = try requests(arguments)
        let reports = try await StoreCtl.withStore(arguments) { store -> [ErasureReport] in
            guard let erasure = store.capabilities.erasure else {
                throw StoreError(.usage, "this store keeps no erasure ledger")
            }
            var reports: [ErasureReport] = []
            do {
                for request in requests { reports.append(try await erasure.erase(request)) }
            } catch let error as StoreError where error.code == .usage {
                // Another key than the ledger's, a lift of an erasure: the request is wrong, not the store.
                throw UsageError(error.message)
            }
            return reports
        }
        for (report, request) in zip(reports, requests) {
            print(describe(report, request))
            for line in report.remaining + report.subjects.flatMap({ s in s.remaining.map { "\(s.pseudonym): \($0)" } })
            {
                StandardError.print("storectl: remaining: \(line)")
            }
        }
        if requests.contains(where: { $0.mode == .erase && !$0.dryRun }) {
            print(await KafkaRetention.lastCopyNotice(arguments))
        }
        return reports.allSatisfy(\.isComplete) ? 0 : 1
    }

    /// The requests the arguments make: one for the `--patient`s, and with `--reapply-ledger` one per mode the file's
    /// persons are re-applied with.
    /// - Throws: ``UsageError`` for a missing or malformed argument.
    static func requests(_ arguments: ParsedCommandLine) throws -> [ErasureRequest] {
        let mode = try arguments.value("--mode").map { text in
            guard let mode = ErasureMode(rawValue: text) else {
                throw UsageError.invalid("--mode", "must be erase, withdraw or lift")
            }
            return mode
        } ?? .erase
        guard let reference = arguments.value("--reference"), !reference.isEmpty else {
            throw UsageError(option: "--reference", "missing: say why (a ticket or request number)")
        }
        guard let keyBytes = try arguments.erasureKeyBytes() else {
            throw UsageError(
                option: "--id-key-file",
                "no key: give the workers' id key (--id-key-file or DVP_ID_KEY) or their --erasure-key-file "
                    + "(--allow-development-key for a devbroker demo)")
        }
        let key: ErasureKey
        do {
            key = try ErasureKey(key: keyBytes)
        } catch let error as StoreError {
            throw UsageError.invalid("--id-key-file", error.message)
        }
        let patients = try patients(arguments)
        let reapplied = try arguments.value("--reapply-ledger").map(LedgerFile.read) ?? []
        guard !patients.isEmpty || !reapplied.isEmpty else {
            throw UsageError(option: "--patient", "no person given: --patient, --patient-file or --reapply-ledger")
        }
        if patients.contains(where: reference.contains) {
            throw UsageError.invalid("--reference", "must not contain a patient id: the ledger keeps it in clear")
        }
        let dryRun = arguments.isSet("--dry-run")
        var requests: [ErasureRequest] = []
        if !patients.isEmpty {
            requests.append(
                ErasureRequest(
                    subjects: patients.map(ErasureRequest.Subject.patient), mode: mode, reference: reference,
                    dryRun: dryRun, key: key))
        }
        for reapplyMode in [ErasureMode.erase, .withdraw] {
            let subjects = reapplied.filter { $0.1 == reapplyMode }.map { ErasureRequest.Subject.pseudonym($0.0) }
            if subjects.isEmpty { continue }
            requests.append(
                ErasureRequest(subjects: subjects, mode: reapplyMode, reference: reference, dryRun: dryRun, key: key))
        }
        return requests
    }

    /// `--patient` values and `--patient-file` lines, each checked against the event contract's id rule.
    private static func patients(_ arguments: ParsedCommandLine) throws -> [String] {
        var ids = arguments.all("--patient").map { ("--patient", 0, $0) }
        if let path = arguments.value("--patient-file") {
            let text = try SecretFile(option: "--patient-file", path: path).text()
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let id = line.trimmingWhitespace()
                if id.isEmpty || id.hasPrefix("#") { continue }
                ids.append(("--patient-file", number + 1, id))
            }
        }
        for (option, line, id) in ids where !DailyValueDecoder.isValidPatientID(id) {
            // The id itself is not echoed: a malformed line may hold anything.
            throw UsageError.invalid(
                option, (line > 0 ? "line \(line): " : "") + "not a patient id (1-64 characters of [A-Za-z0-9.-])")
        }
        var seen = Set<String>()
        return ids.map(\.2).filter { seen.insert($0).inserted }
    }

    private static func describe(_ report: ErasureReport, _ request: ErasureRequest) -> String {
        let verb = request.dryRun ? "would delete" : "deleted"
        return report.subjects.map { subject in
            var line = "\(subject.pseudonym): "
            switch (request.mode, subject.recorded, request.dryRun) {
            case (_, _, true): line += "dry run, nothing changed"
            case (.erase, true, _): line += "erased (ledger entry written)"
            case (.erase, false, _): line += "already erased"
            case (.withdraw, true, _): line += "consent withdrawn (ledger entry written): new events are refused"
            case (.withdraw, false, _): line += "already withdrawn or erased"
            case (.lift, true, _): line += "withdrawal lifted: new events are stored again"
            case (.lift, false, _): line += "no withdrawal in force"
            }
            if request.mode == .erase {
                let d = subject.deleted
                line += "; \(verb) \(d.observations) Observations, \(d.retractions) retraction days, "
                    + "\(d.auditRows) audit rows"
            }
            return line
        }.joined(separator: "\n")
    }
}
