/// The HKSource provenance a generated person's phone reports.
struct SourceProfile: Sendable, Hashable {
    var name: String
    var bundleId: String
    var model: String
    var softwareVersion: String

    /// The `"source":{…}` JSON member.
    var json: String {
        "\"source\":{\"name\":\"\(name)\",\"bundleId\":\"\(bundleId)\",\"model\":\"\(model)\","
            + "\"softwareVersion\":\"\(softwareVersion)\"}"
    }

    static let devices: [SourceProfile] = [
        SourceProfile(name: "Apple Watch", bundleId: "com.apple.health", model: "Watch7,3", softwareVersion: "11.1"),
        SourceProfile(name: "Apple Watch", bundleId: "com.apple.health", model: "Watch6,2", softwareVersion: "10.6"),
        SourceProfile(name: "iPhone", bundleId: "com.apple.health", model: "iPhone16,1", softwareVersion: "18.6"),
        SourceProfile(name: "iPhone", bundleId: "com.apple.health", model: "iPhone14,5", softwareVersion: "17.7"),
    ]
}
