import CommandLineOptions
import Essentials
import StoreCore

/// `erasures`: the erasure ledger, one line per entry, without patient ids (docs/PRIVACY.md); with `--json`, one
/// JSON object per line with the full pseudonym: the file `erase --reapply-ledger` takes after a backup is restored.
enum Erasures {
    static let options: [CommandLineOption] =
        ParsedCommandLine.storeOptions + [
            .flag("--json", help: "one JSON object per entry, with the full pseudonym (for --reapply-ledger)")
        ]

    @Sendable static func run(_ arguments: ParsedCommandLine) async throws -> Int32 {
        try arguments.expectPositionals(0, "")
        let entries = try await StoreCtl.withStore(arguments) { store -> [ErasureLedgerEntry] in
            guard let erasure = store.capabilities.erasure else {
                throw StoreError(.usage, "this store keeps no erasure ledger")
            }
            return try await erasure.erasureLedger()
        }
        if arguments.isSet("--json") {
            for entry in entries { print(LedgerFile.line(entry)) }
            return 0
        }
        if entries.isEmpty {
            print("the erasure ledger is empty")
            return 0
        }
        print("SEQ  PERSON        MODE      REQUESTED                 COMPLETED                 DELETED  REFERENCE")
        for entry in entries {
            let deleted = entry.mode == .erase ? "\(entry.deleted.observations)" : "-"
            print(
                [
                    "\(entry.sequence)".padded(to: 4), entry.pseudonym.shortForm.padded(to: 13),
                    entry.mode.rawValue.padded(to: 9), entry.requestedAt.padded(to: 25),
                    (entry.completedAt ?? (entry.mode == .erase ? "INCOMPLETE (rerun erase)" : "-")).padded(to: 25),
                    deleted.padded(to: 8), entry.reference,
                ].joined(separator: " "))
        }
        let incomplete = entries.filter { $0.mode == .erase && $0.completedAt == nil }.count
        if incomplete > 0 {
            StandardError.print("storectl: \(incomplete) erasure(s) incomplete: run the same storectl erase again")
        }
        return incomplete > 0 ? 1 : 0
    }
}
