#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The manifest an export writes last (`manifest.json`): the FHIR Bulk Data export manifest's fields
/// (`transactionTime`, `request`, `requiresAccessToken`, `output`, `error`) plus what an incremental export needs.
package struct ExportManifest: Codable, Equatable {
    /// When the export started, just before its store was opened and its snapshot read (RFC 3339 UTC): every
    /// change the files hold was committed before the snapshot, later than this only by the opening.
    package var transactionTime: String
    /// What was run, e.g. `storectl export --format ndjson --since …` (no store location: it may hold a password).
    package var request: String
    /// Always false: files on disk.
    package var requiresAccessToken = false
    /// The files, in order.
    package var output: [ExportedFile]
    /// Always empty: a resource that cannot be exported fails the export.
    package var error: [ExportedFile] = []
    /// Incremental exports only (Bulk Data's `deleted`): files of `transaction` Bundles whose entries `DELETE` the
    /// Observations erased since the mark (`storectl erase`, docs/PRIVACY.md); nil in a full export.
    package var deleted: [ExportedFile]?
    /// The store's high-water mark of this export's snapshot: pass this manifest to `--since` to export only what
    /// changed after it.
    package var highWaterMark: String
    /// The mark this export started from (`--since`), or nil for a full export.
    package var since: String?
    /// Resources in all files.
    package var resources: Int
    /// Bytes in all files.
    package var bytes: Int

    package init(
        transactionTime: String, request: String, output: [ExportedFile], highWaterMark: String, since: String?,
        deleted: [ExportedFile]? = nil
    ) {
        self.transactionTime = transactionTime
        self.request = request
        self.output = output
        self.deleted = deleted
        self.highWaterMark = highWaterMark
        self.since = since
        resources = output.reduce(0) { $0 + $1.count }
        bytes = output.reduce(0) { $0 + $1.bytes }
    }

    /// The file name in an export directory.
    package static let fileName = "manifest.json"

    /// Reads the manifest at `path`: a `manifest.json`, or an export directory holding one.
    /// - Throws: ``ExportError`` naming the file and what is wrong.
    package static func read(_ path: String) throws -> ExportManifest {
        var url = URL(fileURLWithPath: path)
        var isDirectory = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory {
            url.appendPathComponent(fileName)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ExportError("cannot read the manifest \(url.path): \(error)")
        }
        do {
            return try JSONDecoder().decode(ExportManifest.self, from: data)
        } catch {
            throw ExportError("\(url.path) is not an export manifest (highWaterMark, output, …): \(error)")
        }
    }

    /// Writes the manifest into `directory` (through a temporary file and a rename: it appears whole or not at all).
    package func write(into directory: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let target = directory.appendingPathComponent(Self.fileName)
        do {
            try encoder.encode(self).write(to: target, options: .atomic)
        } catch {
            throw ExportError("cannot write \(target.path): \(error)")
        }
    }
}

/// One file of an export (the Bulk Data manifest's `output` entry, with its size and digest).
package struct ExportedFile: Codable, Equatable, Sendable {
    /// The resource type, `Observation`.
    package var type: String
    /// The file name, relative to the manifest.
    package var url: String
    /// Resources (lines) in the file.
    package var count: Int
    /// The file's size.
    package var bytes: Int
    /// The file's SHA-256, lowercase hex.
    package var sha256: String
}
