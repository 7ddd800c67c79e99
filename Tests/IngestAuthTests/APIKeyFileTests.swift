import Foundation
import Hashing
import IngestAuth
import Synchronization
import Testing

/// The API key file: keys hashed with `sha256sum` as the docs tell operators, rotation, and malformed files.
@Suite struct APIKeyFileTests {
    let directory: CredentialDirectory

    init() throws { directory = try CredentialDirectory() }

    /// `sha256:` and the key's digest as `printf %s "$KEY" | sha256sum` prints it.
    private func hashLine(_ key: String, _ fields: String) async throws -> String {
        let result = try await ChildProcessShell.run(#"printf %s "$KEY" | sha256sum | cut -d' ' -f1"#, ["KEY": key])
        return "sha256:\(result.trimmingCharacters(in: .whitespacesAndNewlines))  \(fields)"
    }

    private func startError(_ text: String) -> CredentialFileError? {
        let path = try? directory.write("keys", text)
        do {
            _ = try APIKeyFile(path: path ?? "")
            return nil
        } catch { return error }
    }

    @Test func grantsTheScopeOfAKnownKeyAndRefusesOthers() async throws {
        let text = """
            # clinic A's backend
            \(try await hashLine("key-a-4f1c9e", "tenant=clinic-a  patients=ca-"))

            \(try await hashLine("key-ops-77b2", "tenant=ops\tpatients=*  access=all-patients   # every patient"))
            """
        let keys = try APIKeyFile(path: try directory.write("keys", text))
        #expect(keys.keyCount == 2)
        #expect(try keys.verify("key-a-4f1c9e") == IngestScope(tenant: "clinic-a", patientPrefix: "ca-"))
        #expect(try keys.verify("key-ops-77b2") == IngestScope(tenant: "ops", patientPrefix: ""))
        #expect(try keys.verify("key-ops-77b2").allows(patient: "anyone"))
        for unknown in ["key-a-4f1c9", "key-a-4f1c9e ", "KEY-A-4F1C9E", "", SHA256.hex(Array("key-a-4f1c9e".utf8))] {
            #expect(throws: AuthenticationFailure(.invalid, "the bearer token is not a known API key")) {
                try keys.verify(unknown)
            }
        }
    }

    @Test func recognizesEveryTokenThatIsNotShapedLikeAJWT() async throws {
        let keys = try APIKeyFile(path: try directory.write("keys", try await hashLine("k-1", "tenant=t patients=t-")))
        #expect(keys.keyCount == 1)
        #expect(keys.recognizes("3f9a0c"))
        #expect(keys.recognizes("a.b"))
        #expect(!keys.recognizes("a.b.c"))
    }

    @Test func picksUpARotatedFile() async throws {
        let old = try await hashLine("old-key-1", "tenant=clinic-a patients=ca-")
        let kept = try await hashLine("kept-key-2", "tenant=clinic-b patients=cb-")
        let path = try directory.write("keys", old + "\n" + kept + "\n")
        let reloads = Mutex<[CredentialReload]>([])
        let keys = try APIKeyFile(
            path: path, checkInterval: .milliseconds(50), onReload: { event in reloads.withLock { $0.append(event) } })
        #expect(try keys.verify("old-key-1").tenant == "clinic-a")
        try directory.write("keys", kept + "\n" + (try await hashLine("new-key-3", "tenant=clinic-c patients=cc-")))
        try await Task.sleep(for: .milliseconds(120))
        #expect(try keys.verify("new-key-3") == IngestScope(tenant: "clinic-c", patientPrefix: "cc-"))
        #expect(try keys.verify("kept-key-2").tenant == "clinic-b")
        #expect(throws: AuthenticationFailure.self) { try keys.verify("old-key-1") }
        #expect(reloads.withLock { $0 } == [.loaded(path: path, entries: 2)])
    }

    @Test func notCheckedMoreOftenThanTheInterval() async throws {
        let path = try directory.write("keys", try await hashLine("first", "tenant=t patients=t-"))
        let keys = try APIKeyFile(path: path, checkInterval: .seconds(3600))
        try directory.write("keys", try await hashLine("second", "tenant=t patients=t-"))
        #expect(throws: AuthenticationFailure.self) { try keys.verify("second") }
        #expect(keys.reloadIfChanged() == .loaded(path: path, entries: 1))
        #expect(try keys.verify("second").tenant == "t")
    }

    @Test func aMalformedFileAtStartNamesTheLineButNotTheKey() throws {
        let rawKey = "sk_live_9a8b7c6d5e4f"
        let error = try #require(startError("# keys\n\n\(rawKey)  tenant=clinic-a  patients=ca-\n"))
        #expect(error.code == .malformed)
        #expect(error.line == 3)
        #expect(error.description.hasPrefix(directory.path("keys") + " line 3: the first field must be sha256:"))
        #expect(!error.description.contains(rawKey))
        // A key pasted as a later field is not shown either.
        let digest = "sha256:" + SHA256.hex(Array("k".utf8))
        let later = try #require(startError("\(digest) tenant=a patients=a- \(rawKey)\n"))
        #expect(later.message == "field 4 is none of tenant=, patients= and access= (the field is not shown)")
        #expect(!later.description.contains(rawKey))
    }

    @Test(arguments: [
        ("sha256:abc tenant=a patients=*", "the first field must be sha256:"),
        ("sha256:\(String(repeating: "g", count: 64)) tenant=a patients=*", "the first field must be sha256:"),
        ("sha256:\(SHA256.hex([1])) patients=*", "tenant= is missing"),
        ("sha256:\(SHA256.hex([1])) tenant=a", "patients= is missing (patients=* access=all-patients for every"),
        ("sha256:\(SHA256.hex([1])) tenant=a tenant=b patients=*", "tenant= appears twice"),
        ("sha256:\(SHA256.hex([1])) tenant=a patients=* patients=x", "patients= appears twice"),
        ("sha256:\(SHA256.hex([1])) tenant= patients=*", "tenant= must be"),
        ("sha256:\(SHA256.hex([1])) tenant=a/b patients=*", "tenant= must be"),
        ("sha256:\(SHA256.hex([1])) tenant=a patients=", "patients= must be"),
        ("sha256:\(SHA256.hex([1])) tenant=a patients=ca-*", "patients= must be"),
    ])
    func refusesMalformedLines(line: String, message: String) throws {
        let error = try #require(startError("# header\n\(line)\n"))
        #expect(error.line == 2)
        #expect(error.message.hasPrefix(message))
    }

    @Test func refusesADuplicateKeyHashAndTextThatIsNotUTF8() throws {
        let line = "sha256:\(SHA256.hex([1])) tenant=a patients=a-"
        let sameHashInCapitals = "sha256:\(SHA256.hex([1]).uppercased()) tenant=b patients=b-"
        let duplicate = try #require(startError("\(line)\r\n\(sameHashInCapitals)\r\n"))
        #expect(duplicate.code == .conflicting && duplicate.line == 2 && duplicate.otherLine == 1)
        #expect(duplicate.message == "the same key hash as line 1 (a key has one line, and one scope)")
        #expect(!duplicate.description.lowercased().contains(SHA256.hex([1]).lowercased().prefix(16)))
        let path = directory.path("binary")
        try Data([0x73, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: path))
        #expect(throws: CredentialFileError(.unreadable, path: path, "is not UTF-8 text")) {
            try APIKeyFile(path: path)
        }
        #expect(throws: CredentialFileError(.unreadable, path: directory.url.path, "is not a regular file")) {
            try APIKeyFile(path: directory.url.path)
        }
    }

    @Test func aMalformedFileOnReloadKeepsTheOldKeys() async throws {
        let path = try directory.write("keys", try await hashLine("good-key", "tenant=clinic-a patients=ca-"))
        let reloads = Mutex<[CredentialReload]>([])
        let keys = try APIKeyFile(
            path: path, checkInterval: .milliseconds(20), onReload: { event in reloads.withLock { $0.append(event) } })
        try directory.write("keys", "good-key tenant=clinic-a patients=ca-\n")
        try await Task.sleep(for: .milliseconds(60))
        #expect(try keys.verify("good-key").tenant == "clinic-a")
        let failure = try #require(keys.lastReloadError)
        #expect(failure.line == 1 && failure.code == .malformed)
        #expect(!failure.description.contains("good-key"))
        try await Task.sleep(for: .milliseconds(60))
        #expect(try keys.verify("good-key").tenant == "clinic-a")
        #expect(reloads.withLock { $0 } == [.failed(failure)])
    }

    @Test(arguments: ["", "\n\n", "# no keys yet\n", "  \t\n# sha256:00 tenant=t patients=*\n"])
    func aFileWithoutAKeyIsRefusedAtStart(text: String) throws {
        let path = try directory.write("keys", text)
        let message = "holds no API key (every line is blank or a comment): every request would be refused 401"
        #expect(startError(text) == CredentialFileError(.malformed, path: path, message))
    }

    @Test func aFileEmptiedOnReloadKeepsTheOldKeysAndIsReported() async throws {
        let path = try directory.write("keys", try await hashLine("good-key", "tenant=clinic-a patients=ca-"))
        let reloads = Mutex<[CredentialReload]>([])
        let keys = try APIKeyFile(
            path: path, checkInterval: .seconds(3600), onReload: { event in reloads.withLock { $0.append(event) } })
        try directory.write("keys", "# emptied by a broken deployment\n")
        let event = keys.reloadIfChanged()
        guard case .failed(let failure)? = event else {
            Issue.record("an emptied file must be refused, got \(String(describing: event))")
            return
        }
        #expect(failure.code == .malformed && failure.path == path && failure.description.contains("holds no API key"))
        #expect(keys.lastReloadError == failure)
        #expect(keys.keyCount == 1)
        #expect(try keys.verify("good-key").tenant == "clinic-a", "the last good keys stay in use")
        #expect(reloads.withLock { $0 } == [.failed(failure)])
    }
}
