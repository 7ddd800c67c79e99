import DocumentCompression
import ObservationMapping
import StoreCore
import Testing

/// Each store declares what it can do beyond upserts, and the declared operation is the store's own: storectl and the
/// worker ask for it instead of casting the store.
@Suite(.serialized) struct StoreCapabilitiesTests {
    /// The capabilities of a kind of store, by name.
    static func declared(_ capabilities: StoreCapabilities) -> Set<String> {
        var names: Set<String> = []
        if capabilities.versionReader != nil { names.insert("versionReader") }
        if capabilities.finalize != nil { names.insert("finalize") }
        if capabilities.retention != nil { names.insert("retention") }
        if capabilities.export != nil { names.insert("export") }
        if capabilities.schema != nil { names.insert("schema") }
        if capabilities.migrate != nil { names.insert("migrate") }
        if capabilities.audit != nil { names.insert("audit") }
        if capabilities.server != nil { names.insert("server") }
        if capabilities.documentEncoder != nil { names.insert("documentEncoder") }
        return names
    }

    static let expected: [StoreKind: Set<String>] = [
        .sqlite: ["versionReader", "finalize", "export", "schema", "migrate", "audit", "documentEncoder"],
        .postgres: [
            "versionReader", "finalize", "retention", "export", "schema", "migrate", "audit", "documentEncoder",
        ],
        .postgresLanes: ["versionReader", "documentEncoder"],
        .fhir: ["server"],
    ]

    @Test(.timeLimit(.minutes(2)), arguments: StoreKind.allCases)
    func eachStoreDeclaresWhatItCanDo(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            let capabilities = store.capabilities
            #expect(Self.declared(capabilities) == Self.expected[kind])
            // The declared operations work on this store.
            if let schema = capabilities.schema {
                #expect(try await schema.schemaVersion() == kind.schemaVersion)
            }
            if let audit = capabilities.audit {
                try await audit.installVersionAudit()
                #expect(try await audit.versionAudit() == VersionAuditSummary(updates: 0, decreases: 0))
            }
            if let finalize = capabilities.finalize {
                #expect(try await finalize.finalize(settledBefore: 0) == 0)
            }
            if let server = capabilities.server {
                #expect(server.missingFeatures.isEmpty, "\(server.serverSummary)")
            }
            if let reader = capabilities.versionReader {
                let record = StoreTests.record(version: 3)
                #expect(try await store.upsert([record]) == [.inserted])
                #expect(try await reader.storedVersions(for: [record.identity])[record.identity]?.version == 3)
            }
            if let encoder = capabilities.documentEncoder {
                // Documents made ahead are the store's own bytes, and it stores and reads them back as such.
                var records = [
                    StoreTests.record("p-ahead", version: 5, status: .final),
                    StoreTests.record("p-ahead", "steps", version: 5),
                ]
                let plain = records
                encoder.encode(&records, at: \.self)
                for (ahead, record) in zip(records, plain) {
                    #expect(ahead.storedDocument == DocumentCompressor().compress(StoredDocument.parts(of: record)))
                }
                #expect(try await store.upsert(records) == [.inserted, .inserted])
                for record in plain {
                    let stored = try #require(try await store.observation(for: record.identity))
                    #expect(try sameJSON(
                        stored.resource, record.resource, versionId: stored.versionId, lastUpdated: stored.lastUpdated))
                }
            }
        }
    }
}
