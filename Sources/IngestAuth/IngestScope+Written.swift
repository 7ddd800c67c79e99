/// The written forms of a scope's parts, shared by the API key file (`tenant=`, `patients=`) and the JWT claims.
extension IngestScope {
    /// What a tenant name may be, for error messages.
    public static let tenantRule = "1 to 64 ASCII letters, digits, '.', '_' or '-'"
    /// What a written patient prefix may be, for error messages.
    public static let patientPrefixRule =
        "'*' for every patient, or the start of a patient id: 1 to 64 ASCII letters, digits, '-' or '.'"

    /// Whether `tenant` can name a tenant (``tenantRule``): it becomes a log field and a metric label.
    public static func isValidTenant(_ tenant: String) -> Bool {
        (1...64).contains(tenant.utf8.count)
            && tenant.utf8.allSatisfy { isIDCharacter($0) || $0 == UInt8(ascii: "_") }
    }

    /// The ``patientPrefix`` a written prefix stands for (``patientPrefixRule``): `*` is every patient (an empty
    /// prefix), anything else must be the start of a FHIR id, the patient ids' form; nil when it is neither.
    public static func patientPrefix(written: String) -> String? {
        if written == "*" { return "" }
        guard (1...64).contains(written.utf8.count), written.utf8.allSatisfy(isIDCharacter) else { return nil }
        return written
    }

    private static func isIDCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default: false
        }
    }
}
