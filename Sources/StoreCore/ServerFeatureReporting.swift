/// A store behind a server that declares its features (a FHIR server's CapabilityStatement).
public protocol ServerFeatureReporting: Sendable {
    /// The server and what it declares, for a start-up log line.
    var serverSummary: String { get }
    /// Features the store uses that the server does not declare (writes may fail); empty when none.
    var missingFeatures: [String] { get }
}
