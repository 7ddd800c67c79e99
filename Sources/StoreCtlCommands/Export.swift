import CommandLineOptions
import JSON
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `export`: the store's Observations as NDJSON files with a manifest, for a FHIR platform's bulk import
/// (docs/EXPORT.md).
enum Export {
    static let options =
        [ParsedCommandLine.storeOption] + [
            .value("--out", "DIR", help: "a new or empty directory for the files and manifest.json (required)"),
            .value("--format", "F", help: "ndjson (the only format; the default)"),
            .value(
                "--max-file-bytes", "N",
                help: "start a new file before one would pass N bytes (default 50000000; 1000-\(maxFileBytes))"),
            .value(
                "--since", "MANIFEST",
                help: "only what changed after that earlier export (its manifest.json or directory)"),
        ]

    private static let maxFileBytes = 1 << 40
    private static let chunkSize = 1_000

    @Sendable static func run(_ arguments: ParsedCommandLine) async throws -> Int32 {
        try arguments.expectPositionals(0, "")
        guard (arguments.value("--format") ?? "ndjson") == "ndjson" else {
            throw UsageError.invalid("--format", "only ndjson is written")
        }
        guard let out = arguments.value("--out") else {
            throw UsageError(option: "--out", "no output directory: pass --out DIR (a new or empty directory)")
        }
        let limit = try arguments.integer("--max-file-bytes", in: 1_000...maxFileBytes) ?? 50_000_000
        let since = try arguments.value("--since").map { path in
            do {
                return try ExportManifest.read(path)
            } catch let error as ExportError {
                throw UsageError.invalid("--since", error.description)
            }
        }
        if case .fhir = try arguments.storeLocation() {
            throw UsageError.invalid("--store", "a FHIR server is not exported by storectl: use its own $export")
        }
        let directory = try emptyDirectory(out)
        let files = NDJSONFileSet(directory: directory, resourceType: "Observation", maxFileBytes: limit)
        let deletions = NDJSONFileSet(directory: directory, resourceType: "Bundle", maxFileBytes: limit)
        let progress = ExportProgress()
        let mark = try await StoreCtl.withStore(arguments) { store -> ExportMark in
            guard let exporting = store.capabilities.export else {
                throw StoreError(.usage, "this store cannot be exported")
            }
            let transfer = ExportTransfer(files: files, deletions: deletions, progress: progress)
            return try await exporting.exportObservations(
                since: since.map { ExportMark($0.highWaterMark) }, chunkSize: chunkSize, transfer.write,
                deleted: transfer.delete)
        }
        let manifest = ExportManifest(
            transactionTime: progress.startedAt, request: request(arguments), output: try files.finish(),
            highWaterMark: mark.text, since: since?.highWaterMark,
            deleted: since == nil ? nil : try deletions.finish())
        try manifest.write(into: directory)
        progress.report(files, final: true)
        print("manifest: \(directory.appendingPathComponent(ExportManifest.fileName).path)")
        return 0
    }

    /// `out` as a directory URL: created when missing; an existing one must be empty (an export never overwrites).
    private static func emptyDirectory(_ out: String) throws -> URL {
        let url = URL(fileURLWithPath: out, isDirectory: true)
        var isDirectory = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory else { throw UsageError.invalid("--out", "\(out) is a file, not a directory") }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            guard entries.isEmpty else {
                throw UsageError.invalid(
                    "--out",
                    "\(out) is not empty (\(entries.count) entries): an export never overwrites; pass a new "
                        + "directory")
            }
            return url
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw UsageError.invalid("--out", "cannot create \(out): \(error)")
        }
        return url
    }

    /// The command as the manifest records it: the options that shape the export, never the store location.
    private static func request(_ arguments: ParsedCommandLine) -> String {
        var words = ["storectl", "export", "--format", "ndjson"]
        if let limit = arguments.value("--max-file-bytes") { words += ["--max-file-bytes", limit] }
        if let since = arguments.value("--since") { words += ["--since", since] }
        return words.joined(separator: " ")
    }
}

/// Hands the store's chunks to the files; runs on the store's queue, one chunk at a time.
private final class ExportTransfer: @unchecked Sendable {
    private let files: NDJSONFileSet
    private let deletions: NDJSONFileSet
    private let progress: ExportProgress

    init(files: NDJSONFileSet, deletions: NDJSONFileSet, progress: ExportProgress) {
        self.files = files
        self.deletions = deletions
        self.progress = progress
    }

    /// One `transaction` Bundle per chunk of erased ids, each entry a `DELETE` (Bulk Data's `deleted` files).
    @Sendable func delete(_ ids: [String]) throws {
        try deletions.append(
            JSONWriter.string { w in
                w.beginObject()
                w.member("resourceType", "Bundle")
                w.member("type", "transaction")
                w.key("entry")
                w.beginArray()
                for id in ids {
                    w.beginObject()
                    w.key("request")
                    w.beginObject()
                    w.member("method", "DELETE")
                    w.member("url", "Observation/" + id)
                    w.endObject()
                    w.endObject()
                }
                w.endArray()
                w.endObject()
            })
    }

    @Sendable func write(_ chunk: [StoredObservation]) throws {
        for observation in chunk { try files.append(observation.resource) }
        progress.report(files, final: false)
    }
}
