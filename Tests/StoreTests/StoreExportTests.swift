import DailyValueContract
import Essentials
import Foundation
import ObservationMapping
import PostgresClient
import StoreCore
import TestSupport
import Testing

/// `storectl export`'s store side and files: one snapshot, split files, and an incremental export that holds
/// exactly what changed (docs/EXPORT.md).
struct StoreExportTests {
    /// What one export wrote.
    struct Exported {
        var mark: ExportMark
        var files: [ExportedFile]
        var lines: [String]
    }

    /// Exports `store` (since `since`) into a new directory with files of at most `maxFileBytes`.
    static func export(
        _ store: any ObservationStore, since: ExportMark? = nil, maxFileBytes: Int = 50_000_000
    ) async throws -> Exported {
        let exporting = try #require(store as? any ObservationExporting)
        let directory = try TestEnvironment.temporaryDirectory("dvp-export")
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = NDJSONFileSet(directory: directory, resourceType: "Observation", maxFileBytes: maxFileBytes)
        let box = FileSetBox(files)
        let mark = try await exporting.exportObservations(since: since, chunkSize: 7) { chunk in
            for observation in chunk { try box.files.append(observation.resource) }
        }
        let written = try files.finish()
        var lines: [String] = []
        for file in written {
            let text = try String(contentsOf: directory.appendingPathComponent(file.url), encoding: .utf8)
            #expect(text.utf8.count == file.bytes && text.hasSuffix("\n"), "\(file.url)")
            lines += text.split(separator: "\n").map(String.init)
        }
        return Exported(mark: mark, files: written, lines: lines)
    }

    /// Every stored resource, by identity key.
    static func storedResources(_ store: any ObservationStore) async throws -> [String: String] {
        var resources: [String: String] = [:]
        for identity in try await store.allVersions().keys {
            resources[identity.key] = try #require(try await store.observation(for: identity)).resource
        }
        return resources
    }

    static func byKey(_ lines: [String]) throws -> [String: String] {
        var resources: [String: String] = [:]
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let identifier = try #require((object["identifier"] as? [[String: Any]])?.first?["value"] as? String)
            #expect(resources.updateValue(line, forKey: identifier) == nil, "\(identifier) exported twice")
        }
        return resources
    }

    @Test(arguments: StoreKind.databases)
    func anIncrementalExportHoldsExactlyWhatChanged(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            let days = (1...3).map { "2026-10-0\($0)" }
            let first = (0..<10).flatMap { patient in days.map { record("p-\(patient)", "steps", $0, version: 10) } }
            _ = try await store.upsert(first)

            let full = try await Self.export(store, maxFileBytes: 2_000)
            #expect(full.files.count > 1, "split at 2,000 bytes: \(full.files.map(\.bytes))")
            #expect(full.files.allSatisfy { $0.bytes <= 2_000 }, "\(full.files.map(\.bytes))")
            #expect(full.files.map(\.count).reduce(0, +) == 30)
            #expect(try Self.byKey(full.lines) == (try await Self.storedResources(store)))

            let replaced = (0..<5).map { record("p-\($0)", "steps", days[0], version: 11) }
            let added = (10..<14).map { record("p-\($0)", "steps", days[0], version: 10) }
            let retracted = (5..<7).map {
                ObservationRecord.retraction(
                    identity: ObservationIdentity(patient: "p-\($0)", metric: "steps", day: days[1]), version: 20,
                    resourceID: "obs-p-\($0)-steps-\(days[1])", reason: "test")
            }
            let unchanged = [record("p-7", "steps", days[2], version: 10), record("p-8", "steps", days[2], version: 9)]
            _ = try await store.upsert(replaced + added + retracted + unchanged)

            let changes = try await Self.export(store, since: full.mark)
            let stored = try await Self.storedResources(store)
            let changedKeys = Set((replaced + added + retracted).map(\.identity.key))
            #expect(Set(try Self.byKey(changes.lines).keys) == changedKeys)
            #expect(try Self.byKey(changes.lines) == stored.filter { changedKeys.contains($0.key) })

            let nothing = try await Self.export(store, since: changes.mark)
            #expect(nothing.lines.isEmpty && nothing.files.isEmpty)
        }
    }

    /// A writer in progress when the export read its snapshot commits afterwards: its row is in the next export,
    /// though its `last_updated` (its transaction's start) is older than the first export (a time mark would miss it).
    @Test func aWriterInProgressAtTheSnapshotIsInTheNextExport() async throws {
        try await TestStores.withFreshStore(.postgres) { store, location in
            _ = try await store.upsert((0..<3).map { record("p-\($0)", version: 1) })
            guard case .postgres(let url) = location else { throw TestSetupError("not PostgreSQL") }
            let writer = QueueConfined(label: "test.writer", try PostgresConnection(connectionString: url))
            try await writer.run { connection in
                _ = try connection.executeScript(
                    """
                    BEGIN;
                    UPDATE observation SET version = version + 1, version_id = version_id + 1, last_updated = now()
                    WHERE patient = 'p-1'
                    """)
            }
            let during = try await Self.export(store)
            #expect(during.lines.count == 3)
            try await writer.run { _ = try $0.executeScript("COMMIT") }

            let after = try await Self.export(store, since: during.mark)
            #expect(Array(try Self.byKey(after.lines).keys) == ["p-1/heart_rate/2026-10-01"])
            let row = try #require(try await store.observation(for: record("p-1", version: 1).identity))
            #expect(row.versionId == 2 && after.lines == [row.resource])
        }
    }

    @Test(arguments: StoreKind.databases)
    func aMarkOfAnotherStoreOrShapeIsAUsageError(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            let other = kind == .sqlite ? "postgres-snapshot:10:12:" : "sqlite-last-updated:2026-10-01T00:00:00.000Z"
            for text in [other, "postgres-snapshot:x", "sqlite-last-updated:yesterday", ""] {
                let error = await #expect(throws: StoreError.self) {
                    _ = try await Self.export(store, since: ExportMark(text))
                }
                #expect(error?.code == .usage, "\(text): \(String(describing: error))")
            }
        }
    }
}
