/// How an erasure removes the versions a FHIR server keeps of a deleted Observation (a FHIR `DELETE` is a soft
/// delete: the resource answers 410 and its `_history` still holds every version, the person's values included).
/// No standard operation does it, so each server kind has its own; ``FHIRStoreConfiguration/historyPurge`` names
/// one, or the store picks it from the CapabilityStatement's `software.name` (``detected(software:)``).
public enum FHIRHistoryPurge: String, Sendable, Hashable, CaseIterable {
    /// HAPI FHIR: `POST Observation/{id}/$expunge` with `expungeDeletedResources` and `expungePreviousVersions`
    /// after the delete. The server must allow it (`hapi.fhir.expunge_enabled` in the JPA server starter); a
    /// refusal leaves the history, which the report says.
    case expunge
    /// Azure Health Data Services (and Azure API for FHIR): `DELETE Observation/{id}?hardDelete=true` after the
    /// delete removes the resource with its history.
    case hardDelete = "hard-delete"
    /// Google Cloud Healthcare API: `DELETE Observation/{id}/$purge` after the delete removes every historical
    /// version.
    case purge
    /// The server has no way to purge history (sekmet-fhir, the test server, keeps every version of a deleted
    /// resource and has no operation that removes them): the erasure deletes the current versions and its report
    /// says how many resources' history the server keeps (`storectl erase` exits 1).
    case none

    /// The purge of a server whose CapabilityStatement names `software` (`name version`): HAPI → ``expunge``,
    /// Microsoft's FHIR server → ``hardDelete``, Google's → ``purge``, any other → ``none``.
    public static func detected(software: String) -> FHIRHistoryPurge {
        let name = software.lowercased()
        if name.contains("hapi") { return .expunge }
        if name.contains("microsoft") || name.contains("azure") { return .hardDelete }
        if name.contains("google") || name.contains("cloud healthcare") { return .purge }
        return .none
    }

    /// The request that purges `Observation/{id}` (after it was deleted): method, path and body; nil for ``none``.
    func request(_ id: String) -> (method: String, path: String, body: [UInt8]?)? {
        switch self {
        case .expunge:
            let parameters =
                #"{"resourceType":"Parameters","parameter":[{"name":"expungeDeletedResources","valueBoolean":true},"#
                + #"{"name":"expungePreviousVersions","valueBoolean":true}]}"#
            return ("POST", "Observation/\(id)/$expunge", Array(parameters.utf8))
        case .hardDelete: return ("DELETE", "Observation/\(id)?hardDelete=true", nil)
        case .purge: return ("DELETE", "Observation/\(id)/$purge", nil)
        case .none: return nil
        }
    }
}
