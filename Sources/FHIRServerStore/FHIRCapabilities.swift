/// What a FHIR server's CapabilityStatement says about the features the FHIR store relies on, for the start-up log.
public struct FHIRCapabilities: Sendable, Hashable, CustomStringConvertible {
    public var software: String
    public var fhirVersion: String
    /// The HTTP version `/metadata` came over (`2` when HTTP/2 was negotiated).
    public var httpVersion: String
    /// `Observation` lists the `update` interaction.
    public var observationUpdate: Bool
    /// `Observation.updateCreate`: PUT to a new id creates it (Google needs `enableUpdateCreate` on the store).
    public var updateCreate: Bool
    /// `Observation.versioning` is `versioned-update` (the server checks `If-Match`).
    public var versionedUpdate: Bool
    /// `Observation` lists `history-instance`: a racing create can be settled. Required: the store refuses to open
    /// without it.
    public var historyInstance: Bool
    /// The system-level `batch` interaction.
    public var batch: Bool

    init(_ statement: [String: Any], httpVersion: String) {
        let software = statement["software"] as? [String: Any]
        self.software = [software?["name"] as? String, software?["version"] as? String].compactMap { $0 }
            .joined(separator: " ")
        fhirVersion = statement["fhirVersion"] as? String ?? "unknown"
        self.httpVersion = httpVersion
        let rest = (statement["rest"] as? [[String: Any]])?.first { $0["mode"] as? String == "server" } ?? [:]
        let observation = (rest["resource"] as? [[String: Any]])?.first { $0["type"] as? String == "Observation" }
        let codes = { (list: Any?) in Set((list as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }) }
        observationUpdate = codes(observation?["interaction"]).contains("update")
        historyInstance = codes(observation?["interaction"]).contains("history-instance")
        updateCreate = observation?["updateCreate"] as? Bool ?? false
        versionedUpdate = observation?["versioning"] as? String == "versioned-update"
        batch = codes(rest["interaction"]).contains("batch")
    }

    /// Features the store needs that the server does not declare (it may still support them undeclared);
    /// `history-instance` is not listed: the store does not open without it.
    public var missing: [String] {
        [
            observationUpdate ? nil : "Observation update", updateCreate ? nil : "Observation updateCreate",
            versionedUpdate ? nil : "Observation versioned-update (If-Match)", batch ? nil : "batch",
            fhirVersion.hasPrefix("4.0") ? nil : "FHIR R4 (4.0.x)",
        ].compactMap { $0 }
    }

    public var description: String {
        "\(software.isEmpty ? "unnamed server" : software), FHIR \(fhirVersion), HTTP/\(httpVersion)"
            + (missing.isEmpty
                ? "; declares everything the store uses"
                : "; does not declare: "
                    + missing.joined(separator: ", "))
    }
}
