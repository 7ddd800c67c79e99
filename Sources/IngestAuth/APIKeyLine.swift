import Hashing

/// One key line of the API key file (docs/INGEST-AUTH.md), its fields read: the key's SHA-256, the scope it grants,
/// and whether it grants every patient on purpose (`patients=*` with `access=all-patients`).
///
/// The rules of one line are checked here; the rules between lines (a hash once, no overlapping prefixes of two
/// tenants) are ``APIKeyTable``'s. Errors name the field, never its value: a key may be pasted into any field.
struct APIKeyLine {
    static let digestPrefix = "sha256:"
    /// The one value of `access=`: the line's `patients=*` is meant, although it overlaps every other tenant.
    static let allPatientsAccess = "all-patients"

    var digest: [UInt8]
    var scope: IngestScope
    /// `patients=*` marked `access=all-patients`: every patient, deliberately.
    var isAllPatients: Bool { scope.patientPrefix.isEmpty }

    /// The key line `line`, or nil for a line that is blank or a comment.
    /// - Throws: `malformed(message)`, the caller's error for the line, when a field breaks its rule.
    static func parse(
        _ line: Substring, _ malformed: (String) -> CredentialFileError
    ) throws(CredentialFileError) -> APIKeyLine? {
        let fields = Self.fields(of: line)
        guard let first = fields.first else { return nil }
        guard first.hasPrefix(digestPrefix),
            let digest = Hex.bytes(first.dropFirst(digestPrefix.count)),
            digest.count == SHA256.digestSize
        else {
            throw malformed(
                "the first field must be sha256: and the 64 hex digits of the key's SHA-256 (printf %s \"$KEY\" "
                    + "| sha256sum); the file holds key hashes, never keys (the line is not shown)")
        }
        return APIKeyLine(digest: digest, scope: try scope(fields.dropFirst(), malformed))
    }

    /// The line's fields, up to a `#` that starts one (a comment).
    private static func fields(of line: Substring) -> [Substring] {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        return Array(fields.prefix { !$0.hasPrefix("#") })
    }

    /// The scope of the fields after the hash: `tenant=`, `patients=` and, with `patients=*` only, `access=`.
    private static func scope(
        _ fields: ArraySlice<Substring>, _ malformed: (String) -> CredentialFileError
    ) throws(CredentialFileError) -> IngestScope {
        var tenant: String?
        var prefix: String?
        var access: Substring?
        for (offset, field) in fields.enumerated() {
            if let value = value(of: "tenant=", in: field) {
                guard tenant == nil else { throw malformed("tenant= appears twice") }
                guard IngestScope.isValidTenant(String(value)) else {
                    throw malformed("tenant= must be \(IngestScope.tenantRule)")
                }
                tenant = String(value)
            } else if let value = value(of: "patients=", in: field) {
                guard prefix == nil else { throw malformed("patients= appears twice") }
                guard let written = IngestScope.patientPrefix(written: String(value)) else {
                    throw malformed("patients= must be \(IngestScope.patientPrefixRule)")
                }
                prefix = written
            } else if let value = value(of: "access=", in: field) {
                guard access == nil else { throw malformed("access= appears twice") }
                guard value == allPatientsAccess else {
                    throw malformed("access= must be \(allPatientsAccess), its only value (the value is not shown)")
                }
                access = value
            } else {
                throw malformed(
                    "field \(offset + 2) is none of tenant=, patients= and access= (the field is not shown)")
            }
        }
        guard let tenant else { throw malformed("tenant= is missing") }
        guard let prefix else {
            throw malformed("patients= is missing (patients=* access=\(allPatientsAccess) for every patient)")
        }
        if prefix.isEmpty, access == nil {
            throw malformed(
                "patients=* lets the key send records of every patient, of every tenant: add "
                    + "access=\(allPatientsAccess) to the line if that is meant")
        }
        if !prefix.isEmpty, access != nil {
            throw malformed("access=\(allPatientsAccess) is only for patients=* (this line has a patient prefix)")
        }
        return IngestScope(tenant: tenant, patientPrefix: prefix)
    }

    /// What follows `name` (e.g. `tenant=`) in `field`, or nil when the field is another one.
    private static func value(of name: String, in field: Substring) -> Substring? {
        field.hasPrefix(name) ? field.dropFirst(name.count) : nil
    }
}
