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
        return names
    }

    static let expected: [StoreKind: Set<String>] = [
        .sqlite: ["versionReader", "finalize", "export", "schema", "migrate", "audit"],
        .postgres: ["versionReader", "finalize", "retention", "export", "schema", "migrate", "audit"],
        .postgresLanes: ["versionReader"],
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
        }
    }
}
