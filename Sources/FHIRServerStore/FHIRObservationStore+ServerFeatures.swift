import StoreCore

extension FHIRObservationStore: ServerFeatureReporting {
    public var serverSummary: String { "\(serverCapabilities)" }
    public var missingFeatures: [String] { serverCapabilities.missing }
}
