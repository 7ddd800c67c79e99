/// The patient prefixes of the API key file's lines read so far, with their tenants: finds the earlier line of
/// another tenant whose prefix overlaps a new one, i.e. one of the two prefixes starts the other (equal prefixes
/// included). Either tenant's key could then send records of the other's patients.
///
/// Prefixes are short (at most 64 bytes, ``IngestScope/patientPrefixRule``), so a line costs one look-up per start
/// of its prefix (the prefixes it extends) and one for the prefixes that extend it: each registered prefix records,
/// under every start of itself, the first line of up to two tenants. Two are enough to find a tenant other than the
/// new line's, and keeping the first two keeps the earliest: lines are added in file order.
struct TenantPrefixIndex {
    /// A line of the file: its number and its tenant.
    private struct Owner {
        var tenant: String
        var line: Int
    }

    /// Each prefix written, with the first line that wrote it (one tenant per prefix while nothing overlapped).
    private var exact: [String: Owner] = [:]
    /// Each start of a written prefix, with the first line of up to two tenants whose prefix begins with it.
    private var extensions: [String: [Owner]] = [:]

    /// Adds the `prefix` of `tenant`'s line `line`, unless it overlaps an earlier line of another tenant.
    /// - Returns: the earliest line of another tenant whose prefix starts `prefix` or is started by it, or nil (then
    ///   the line is added). Lines of the same tenant may overlap.
    mutating func overlap(adding prefix: String, tenant: String, line: Int) -> Int? {
        let starts = Self.starts(of: prefix)
        var earliest: Int?
        func note(_ owner: Owner?) {
            guard let owner, owner.tenant != tenant else { return }
            earliest = min(earliest ?? owner.line, owner.line)
        }
        for start in starts { note(exact[start]) }
        for owner in extensions[prefix] ?? [] { note(owner) }
        if let earliest { return earliest }
        let owner = Owner(tenant: tenant, line: line)
        if exact[prefix] == nil { exact[prefix] = owner }
        for start in starts {
            var owners = extensions[start] ?? []
            guard owners.count < 2, !owners.contains(where: { $0.tenant == tenant }) else { continue }
            owners.append(owner)
            extensions[start] = owners
        }
        return nil
    }

    /// Every start of `prefix`, from the empty one to `prefix` itself (prefixes are ASCII: ``IngestScope``).
    private static func starts(of prefix: String) -> [String] {
        let bytes = Array(prefix.utf8)
        return (0...bytes.count).map { String(decoding: bytes[..<$0], as: UTF8.self) }
    }
}
