import Hashing

/// The parsed API key file (the format: ``APIKeyFile``, docs/INGEST-AUTH.md): each key's SHA-256 digest with the
/// scope it grants, checked as a whole. Errors name the line and the field, never the line's text (a key pasted where
/// its hash belongs must not reach a log).
///
/// Tenants are kept apart: two lines of different tenants whose patient prefixes overlap (one starts the other) are
/// refused, since either key could send the other tenant's patients. Lines of one tenant may overlap (several keys of
/// one backend). A `patients=*` line overlaps every tenant, so it is accepted only marked `access=all-patients`
/// (``APIKeyLine``), and then it is not compared with the others.
struct APIKeyTable: CredentialFileContent {
    struct Entry: Sendable {
        var digest: [UInt8]
        var scope: IngestScope
    }

    private(set) var entries: [Entry] = []

    var entryCount: Int { entries.count }

    /// - Throws: ``CredentialFileError``: `unreadable` for bytes that are not UTF-8; `malformed` with the line for a
    ///   field that breaks its rule, or without one for a file that holds no key; `conflicting` with both lines for a
    ///   key hash written twice or the overlapping patient prefixes of two tenants.
    init(parsing bytes: [UInt8], path: String) throws(CredentialFileError) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CredentialFileError(.unreadable, path: path, "is not UTF-8 text")
        }
        var lineOfDigest: [[UInt8]: Int] = [:]
        var prefixes = TenantPrefixIndex()
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, text) in lines.enumerated() {
            let number = index + 1
            let parsed = try APIKeyLine.parse(text) { message in
                CredentialFileError(.malformed, path: path, line: number, message)
            }
            guard let line = parsed else { continue }
            if let earlier = lineOfDigest[line.digest] {
                throw CredentialFileError(
                    .conflicting, path: path, line: number, otherLine: earlier,
                    "the same key hash as line \(earlier) (a key has one line, and one scope)")
            }
            lineOfDigest[line.digest] = number
            if !line.isAllPatients,
                let earlier = prefixes.overlap(
                    adding: line.scope.patientPrefix, tenant: line.scope.tenant, line: number)
            {
                throw CredentialFileError(
                    .conflicting, path: path, line: number, otherLine: earlier,
                    "patients= overlaps that of line \(earlier), another tenant's (one prefix starts the other): "
                        + "either key could send the other tenant's patients; give each tenant a prefix that no "
                        + "other tenant's starts or extends")
            }
            entries.append(Entry(digest: line.digest, scope: line.scope))
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
}
