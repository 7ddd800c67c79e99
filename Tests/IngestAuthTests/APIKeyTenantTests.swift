import Hashing
import IngestAuth
import Synchronization
import Testing

/// Tenants are kept apart in the API key file: overlapping patient prefixes of two tenants, `patients=*` only with
/// `access=all-patients`, at start and on a re-read (which keeps the old keys).
@Suite struct APIKeyTenantTests {
    let directory: CredentialDirectory

    init() throws { directory = try CredentialDirectory() }

    /// A key line for `key` (its SHA-256 as the file holds it) with `fields`.
    private static func line(_ key: String, _ fields: String) -> String {
        "sha256:\(SHA256.hex(Array(key.utf8)))  \(fields)"
    }

    /// The file of `lines`, loaded; the error when it is refused.
    private func load(_ lines: [String]) -> Result<APIKeyFile, CredentialFileError> {
        do {
            return .success(try APIKeyFile(path: try directory.write("keys", lines.joined(separator: "\n") + "\n")))
        } catch let error as CredentialFileError {
            return .failure(error)
        } catch {
            return .failure(CredentialFileError(.unreadable, path: "", "cannot write the file: \(error)"))
        }
    }

    private func refusal(_ lines: [String]) -> CredentialFileError? {
        guard case .failure(let error) = load(lines) else { return nil }
        return error
    }

    /// Checks `error` is an overlap of line `line` with the earlier `otherLine`, naming both and none of the text.
    private func expectOverlap(
        _ error: CredentialFileError?, line: Int, otherLine: Int, hiding texts: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error else {
            Issue.record("the file must be refused", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == .conflicting, sourceLocation: sourceLocation)
        #expect(error.line == line && error.otherLine == otherLine, "\(error)", sourceLocation: sourceLocation)
        #expect(
            error.description.hasPrefix(
                directory.path("keys") + " line \(line): patients= overlaps that of line \(otherLine), "
                    + "another tenant's (one prefix starts the other)"), "\(error)", sourceLocation: sourceLocation)
        for text in texts {
            #expect(!error.message.contains(text), "shows \(text)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Overlapping prefixes

    @Test func refusesAPrefixOfAnotherTenantThatStartsOrExtendsIt() {
        let short = Self.line("key-alpha", "tenant=alpha patients=ca")
        let long = Self.line("key-beta", "tenant=beta patients=cab-")
        let hidden = ["alpha", "beta", "cab-", String(SHA256.hex(Array("key-alpha".utf8)).prefix(12))]
        expectOverlap(refusal([short, long]), line: 2, otherLine: 1, hiding: hidden)
        expectOverlap(refusal(["# the longer first", long, "", short]), line: 4, otherLine: 2, hiding: hidden)
    }

    @Test func refusesEqualPrefixesOfTwoTenants() {
        let lines = [
            Self.line("key-a", "tenant=clinic-a patients=c-"),
            Self.line("key-b", "tenant=clinic-b patients=c-"),
        ]
        expectOverlap(refusal(lines), line: 2, otherLine: 1, hiding: ["clinic-a", "clinic-b"])
    }

    @Test func namesTheEarliestOverlappingLine() {
        // c- starts the prefixes of lines 2 and 3 (two other tenants) and extends none: line 2 is named.
        let lines = [
            Self.line("key-x", "tenant=x patients=d-"),
            Self.line("key-a", "tenant=a patients=c-a"),
            Self.line("key-b", "tenant=b patients=c-b"),
            Self.line("key-a2", "tenant=a patients=c-ab"),
            Self.line("key-c", "tenant=c patients=c-"),
        ]
        expectOverlap(refusal(lines), line: 5, otherLine: 2, hiding: [])
        // A line extending two earlier prefixes of other tenants names the first of them.
        let nested = [
            Self.line("key-a", "tenant=a patients=p"),
            Self.line("key-a2", "tenant=a patients=p-1"),
            Self.line("key-b", "tenant=b patients=p-12"),
        ]
        expectOverlap(refusal(nested), line: 3, otherLine: 1, hiding: [])
    }

    @Test func acceptsOverlappingPrefixesOfOneTenantAndDisjointOnesOfOthers() throws {
        let lines = [
            Self.line("key-a1", "tenant=clinic-a patients=ca"),
            Self.line("key-a2", "tenant=clinic-a patients=cab-"),
            Self.line("key-a3", "tenant=clinic-a patients=ca"),
            Self.line("key-b", "tenant=clinic-b patients=cb-"),
            Self.line("key-c", "tenant=clinic-c patients=c-"),
            Self.line("key-d", "tenant=clinic-d patients=cac"),
        ]
        // cac extends ca of clinic-a: refused; without that line the rest stands.
        expectOverlap(refusal(lines), line: 6, otherLine: 1, hiding: [])
        let keys = try load(Array(lines.dropLast())).get()
        #expect(keys.keyCount == 5)
        #expect(try keys.verify("key-a2") == IngestScope(tenant: "clinic-a", patientPrefix: "cab-"))
        #expect(try keys.verify("key-c") == IngestScope(tenant: "clinic-c", patientPrefix: "c-"))
    }

    // MARK: - Every patient

    @Test func refusesEveryPatientWithoutTheMarker() throws {
        let lines = [Self.line("key-a", "tenant=clinic-a patients=ca-"), Self.line("key-ops", "tenant=ops patients=*")]
        let error = try #require(refusal(lines))
        #expect(error.code == .malformed && error.line == 2)
        #expect(
            error.message
                == "patients=* lets the key send records of every patient, of every tenant: add "
                + "access=all-patients to the line if that is meant")
        // Alone in the file, too: it overlaps every tenant that may come.
        #expect(refusal([Self.line("key-ops", "tenant=ops patients=*")])?.line == 1)
    }

    @Test func acceptsEveryPatientWithTheMarkerBesideOtherTenants() throws {
        let keys = try load([
            Self.line("key-a", "tenant=clinic-a patients=ca-"),
            Self.line("key-ops", "tenant=ops patients=* access=all-patients  # the operations tool"),
            Self.line("key-audit", "tenant=audit access=all-patients\tpatients=*"),
            Self.line("key-b", "tenant=clinic-b patients=cb-"),
        ]).get()
        #expect(keys.keyCount == 4)
        #expect(try keys.verify("key-ops") == IngestScope(tenant: "ops", patientPrefix: ""))
        #expect(try keys.verify("key-audit").allows(patient: "cb-17"))
        #expect(try keys.verify("key-b") == IngestScope(tenant: "clinic-b", patientPrefix: "cb-"))
    }

    @Test(arguments: [
        ("tenant=a patients=ca- access=all-patients", "access=all-patients is only for patients=*"),
        ("tenant=a patients=* access=all", "access= must be all-patients, its only value (the value is not shown)"),
        ("tenant=a patients=* access=ALL-PATIENTS", "access= must be all-patients"),
        ("tenant=a patients=* access=", "access= must be all-patients"),
        ("tenant=a patients=* access=all-patients access=all-patients", "access= appears twice"),
    ])
    func refusesAMisusedMarker(fields: String, message: String) throws {
        let error = try #require(refusal(["# keys", Self.line("key-a", fields)]))
        #expect(error.code == .malformed && error.line == 2)
        #expect(error.message.hasPrefix(message), "\(error.message)")
    }

    // MARK: - Re-reads

    @Test func anOverlappingFileOnReloadKeepsTheOldKeysAndIsReported() async throws {
        let good = [
            Self.line("key-a", "tenant=clinic-a patients=ca-"), Self.line("key-b", "tenant=clinic-b patients=cb-"),
        ]
        let path = try directory.write("keys", good.joined(separator: "\n"))
        let reloads = Mutex<[CredentialReload]>([])
        let keys = try APIKeyFile(
            path: path, checkInterval: .milliseconds(20), onReload: { event in reloads.withLock { $0.append(event) } })
        // Clinic B's key widened to clinic A's patients, and a new key: neither may take effect.
        let overlapping = [
            Self.line("key-a", "tenant=clinic-a patients=ca-"), Self.line("key-b", "tenant=clinic-b patients=c"),
            Self.line("key-new", "tenant=clinic-c patients=cc-"),
        ]
        try directory.write("keys", overlapping.joined(separator: "\n"))
        try await Task.sleep(for: .milliseconds(60))
        #expect(try keys.verify("key-b") == IngestScope(tenant: "clinic-b", patientPrefix: "cb-"))
        #expect(throws: AuthenticationFailure.self) { try keys.verify("key-new") }
        #expect(keys.keyCount == 2)
        let failure = try #require(keys.lastReloadError)
        #expect(failure.code == .conflicting && failure.path == path && failure.line == 2 && failure.otherLine == 1)
        #expect(reloads.withLock { $0 } == [.failed(failure)])
        // Fixed, the file is taken.
        try directory.write(
            "keys", (good + [Self.line("key-new", "tenant=clinic-c patients=cc-")]).joined(separator: "\n"))
        #expect(keys.reloadIfChanged() == .loaded(path: path, entries: 3))
        #expect(keys.lastReloadError == nil)
        #expect(try keys.verify("key-new").tenant == "clinic-c")
    }
}
