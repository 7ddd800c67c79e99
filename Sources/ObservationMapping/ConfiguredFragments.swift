import DailyValueContract
import JSON

/// The parts of every Observation that depend only on the mapper's configuration, rendered once (a class, like
/// ``MetricFragments``: one retain per use). Written with ``JSONWriter/raw(_:leavesOpen:)``; the same writer calls
/// render them, so the bytes are those the calls would write per event.
final class ConfiguredFragments: Sendable {
    /// `{"resourceType":"Observation","id":`
    let resourceOpening: [UInt8]
    /// `"source":"…"`, the member of `meta`.
    let metaSource: [UInt8]
    /// `"extension":[{"url":"<source extension URL>","extension":[`
    let provenanceOpening: [UInt8]
    /// `{"url":"<field>","valueString":` for each kept source field.
    let nameOpening: [UInt8], bundleIdOpening: [UInt8], modelOpening: [UInt8], softwareVersionOpening: [UInt8]
    /// `"identifier":[{"system":"…","value":`
    let identifierOpening: [UInt8]

    init(_ configuration: ObservationMapper.Configuration) {
        resourceOpening = JSONWriter.bytes(capacity: 64) { w in
            w.beginObject()
            w.member("resourceType", "Observation")
            w.key("id")
        }
        metaSource = JSONWriter.bytes(capacity: 128) { $0.member("source", configuration.metaSource) }
        provenanceOpening = JSONWriter.bytes(capacity: 128) { w in
            w.key("extension")
            w.beginArray()
            w.beginObject()
            w.member("url", configuration.sourceExtensionURL)
            w.key("extension")
            w.beginArray()
        }
        func extensionOpening(_ url: String) -> [UInt8] {
            JSONWriter.bytes(capacity: 64) { w in
                w.beginObject()
                w.member("url", url)
                w.key("valueString")
            }
        }
        nameOpening = extensionOpening("name")
        bundleIdOpening = extensionOpening("bundleIdentifier")
        modelOpening = extensionOpening("model")
        softwareVersionOpening = extensionOpening("softwareVersion")
        identifierOpening = JSONWriter.bytes(capacity: 128) { w in
            w.key("identifier")
            w.beginArray()
            w.beginObject()
            w.member("system", configuration.identifierSystem)
            w.key("value")
        }
    }
}
