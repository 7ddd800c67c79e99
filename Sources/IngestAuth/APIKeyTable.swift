import Hashing

/// The parsed API key file (the format: ``APIKeyFile``, docs/INGEST-AUTH.md): each key's SHA-256 digest with the
/// scope it grants. Errors name the line and the field, never the line's text (a key pasted where its hash belongs
/// must not reach a log).
struct APIKeyTable: CredentialFileContent {
    struct Entry: Sendable {
        var digest: [UInt8]
        var scope: IngestScope
    }

    private(set) var entries: [Entry] = []

    var entryCount: Int { entries.count }

    static let digestPrefix = "sha256:"

    /// - Throws: ``CredentialFileError``: `unreadable` for bytes that are not UTF-8, `malformed` with the line, or
    ///   without one for a file that holds no key.
    init(parsing bytes: [UInt8], path: String) throws(CredentialFileError) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CredentialFileError(.unreadable, path: path, "is not UTF-8 text")
        }
        var lineOfDigest: [[UInt8]: Int] = [:]
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            func malformed(_ message: String) -> CredentialFileError {
                CredentialFileError(.malformed, path: path, line: number, message)
            }
            let fields = Self.fields(of: rawLine)
            guard let first = fields.first else { continue }
            guard first.hasPrefix(Self.digestPrefix),
                let digest = Hex.bytes(first.dropFirst(Self.digestPrefix.count)),
                digest.count == SHA256.digestSize
            else {
                throw malformed(
                    "the first field must be sha256: and the 64 hex digits of the key's SHA-256 (printf %s \"$KEY\" "
                        + "| sha256sum); the file holds key hashes, never keys (the line is not shown)")
            }
            if let earlier = lineOfDigest[digest] { throw malformed("the same key hash as line \(earlier)") }
            lineOfDigest[digest] = number
            entries.append(Entry(digest: digest, scope: try Self.scope(fields.dropFirst(), malformed)))
        }
        // A file without a key lets nobody in: a truncated file or a wrong path, never what an operator meant.
        guard !entries.isEmpty else {
            throw CredentialFileError(
                .malformed, path: path,
                "holds no API key (every line is blank or a comment): every request would be refused 401")
        }
    }

    /// The scope of the key whose SHA-256 is `digest`, found in constant time: every entry is compared, all
    /// 32 bytes each, whether or not an earlier one matched.
    func scope(ofDigest digest: [UInt8]) -> IngestScope? {
        var found: IngestScope?
        for entry in entries where ConstantTime.equal(entry.digest, digest) { found = entry.scope }
        return found
    }

    // MARK: - Lines

    /// The line's fields, up to a `#` that starts one (a comment).
    private static func fields(of line: Substring) -> [Substring] {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        return Array(fields.prefix { !$0.hasPrefix("#") })
    }

    private static func scope(
        _ fields: ArraySlice<Substring>, _ malformed: (String) -> CredentialFileError
    ) throws(CredentialFileError) -> IngestScope {
        var tenant: String?
        var prefix: String?
        for (offset, field) in fields.enumerated() {
            if field.hasPrefix("tenant=") {
                guard tenant == nil else { throw malformed("tenant= appears twice") }
                let value = String(field.dropFirst("tenant=".count))
                guard IngestScope.isValidTenant(value) else {
                    throw malformed("tenant= must be \(IngestScope.tenantRule)")
                }
                tenant = value
            } else if field.hasPrefix("patients=") {
                guard prefix == nil else { throw malformed("patients= appears twice") }
                guard let value = IngestScope.patientPrefix(written: String(field.dropFirst("patients=".count))) else {
                    throw malformed("patients= must be \(IngestScope.patientPrefixRule)")
                }
                prefix = value
            } else {
                throw malformed("field \(offset + 2) is neither tenant= nor patients= (the field is not shown)")
            }
        }
        guard let tenant else { throw malformed("tenant= is missing") }
        guard let prefix else { throw malformed("patients= is missing (write patients=* for every patient)") }
        return IngestScope(tenant: tenant, patientPrefix: prefix)
    }
}
