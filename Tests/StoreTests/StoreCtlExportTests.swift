import Foundation
import Hashing
import StoreCore
import TestSupport
import Testing

/// `storectl export` as an operator runs it: files, manifest, progress, `--since`, and what it refuses.
struct StoreCtlExportTests {
    static func storectl(_ arguments: [String]) async throws -> ProcessResult {
        try await ChildProcess.run(try TestEnvironment.requireBinary("storectl").path, ["export"] + arguments)
    }

    @Test func aFullThenAnIncrementalExportFromTheCommandLine() async throws {
        try await TestStores.withFreshStore(.sqlite) { store, location in
            guard case .sqlite(let path) = location else { throw TestSetupError("not SQLite") }
            _ = try await store.upsert((0..<20).map { record("p-\($0)", version: 1) })
            let directory = try TestEnvironment.temporaryDirectory("dvp-storectl-export")
            defer { try? FileManager.default.removeItem(at: directory) }
            let full = directory.appendingPathComponent("full")

            let first = try await Self.storectl([
                "--store", "sqlite:" + path, "--out", full.path, "--max-file-bytes", "1000",
            ])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("exported 20 resources"), "\(first.stdout)")
            let manifest = try ExportManifest.read(full.path)
            #expect(manifest.resources == 20 && manifest.output.count > 1 && manifest.since == nil)
            #expect(manifest.highWaterMark.hasPrefix("sqlite-last-updated:"))
            #expect(!manifest.request.contains(path), "the store location stays out of the manifest")
            for file in manifest.output {
                let bytes = [UInt8](try Data(contentsOf: full.appendingPathComponent(file.url)))
                #expect(bytes.count == file.bytes && bytes.count <= 1000 && SHA256.hex(bytes) == file.sha256)
                #expect(bytes.split(separator: 0x0A).count == file.count)
            }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: full.path).allSatisfy { !$0.hasSuffix(".partial") })

            _ = try await store.upsert([
                record("p-3", version: 2), record("p-30", version: 1), record("p-4", version: 1),
            ])
            let changes = directory.appendingPathComponent("changes")
            let second = try await Self.storectl([
                "--store", "sqlite:" + path, "--out", changes.path, "--since", full.path,
            ])
            #expect(second.status == 0, "\(second.stderr)")
            let incremental = try ExportManifest.read(changes.appendingPathComponent("manifest.json").path)
            #expect(incremental.resources == 2 && incremental.since == manifest.highWaterMark)
        }
    }

    @Test func whatItRefusesExitsTwoAndSaysWhy() async throws {
        let directory = try TestEnvironment.temporaryDirectory("dvp-storectl-export")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = ["--store", "sqlite:" + directory.appendingPathComponent("s.db").path]
        let out = directory.appendingPathComponent("out").path
        let busy = directory.appendingPathComponent("busy")
        try FileManager.default.createDirectory(at: busy, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: busy.appendingPathComponent("old.ndjson"))
        let notAManifest = directory.appendingPathComponent("notes.json")
        try Data(#"{"hello": 1}"#.utf8).write(to: notAManifest)
        let cases: [(arguments: [String], says: String)] = [
            (store + ["--out", out, "--format", "csv"], "only ndjson"),
            (store, "--out"),
            (store + ["--out", busy.path], "not empty"),
            (
                store + ["--out", out, "--since", directory.appendingPathComponent("none").path],
                "cannot read the manifest"
            ),
            (store + ["--out", out, "--since", notAManifest.path], "not an export manifest"),
            (store + ["--out", out, "--max-file-bytes", "10"], "--max-file-bytes"),
            (["--store", "fhir+http://127.0.0.1:9/fhir", "--out", out], "$export"),
            (["--store", "postgresql://dvp:s3cret-pw@127.0.0.1:9/x", "--out", out, "--format", "csv"], "only ndjson"),
        ]
        for (arguments, says) in cases {
            let result = try await Self.storectl(arguments)
            #expect(result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(says), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("s3cret-pw"))
            #expect(!FileManager.default.fileExists(atPath: out), "\(arguments): nothing written")
        }

        // Valid options, a server that is not there: the connection error names no password either.
        let unreachable = try await Self.storectl(["--store", "postgresql://dvp:s3cret-pw@127.0.0.1:9/x", "--out", out])
        #expect(unreachable.status != 0 && !unreachable.stderr.isEmpty, "\(unreachable.stderr)")
        #expect(!unreachable.stderr.contains("s3cret-pw"), "\(unreachable.stderr)")
    }
}
