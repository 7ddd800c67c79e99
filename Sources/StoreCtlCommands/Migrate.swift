import CommandLineOptions
import Essentials
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `migrate`: rewrites rows of an older shape into the current schema's, online (docs/STORAGE.md).
enum Migrate {
    static let batchOption = CommandLineOption.value(
        "--batch", "N", help: "rows per transaction (default 500, 1-10000); a worker waits for one batch at most")

    @Sendable static func run(_ arguments: ParsedCommandLine) async throws -> Int32 {
        try arguments.expectPositionals(0, "")
        let batchSize = try arguments.integer("--batch", in: 1...10_000) ?? 500
        let result = try await StoreCtl.withStore(arguments) { store -> DocumentMigrationProgress? in
            guard let migrating = store.capabilities.migrate else { return nil }
            let started = Date()
            return try await migrating.migrateDocuments(batchSize: batchSize) { done in
                let seconds = Date().timeIntervalSince(started)
                let line =
                    "migrated \(done.rewritten) of \(done.total) rows (\(percent(done))), kept \(done.kept), "
                    + FixedFormat.decimals(seconds > 0 ? Double(done.rewritten) / seconds : 0, 0) + " rows/s\n"
                FileDescriptorOutput.write(line, to: STDOUT_FILENO)  // unbuffered: a progress line shows at once
            }
        }
        guard let result else {
            print("nothing to migrate: this store keeps no rows in an older shape")
            return 0
        }
        print("done: rewritten \(result.rewritten), kept \(result.kept), left in the older shape \(result.left)")
        guard result.left == 0 else {
            StandardError.print(
                "storectl: \(result.left) rows are still in the older shape (held by a writer, written by a pod of an "
                    + "older build meanwhile, or not a JSON object): run migrate again")
            return 1
        }
        return 0
    }

    private static func percent(_ done: DocumentMigrationProgress) -> String {
        done.total == 0 ? "100%" : "\(100 * (done.rewritten + done.kept) / done.total)%"
    }
}
