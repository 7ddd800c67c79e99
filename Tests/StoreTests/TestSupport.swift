import DailyValueContract
import Foundation
import ObservationMapping
import TestSupport

/// Shared fixtures: a fixed clock, a decoder and a mapper configured like a deployment.
enum Fixtures {
    /// 2026-11-01T12:00:00Z: every test day is measured against this instant.
    static let now = Date(timeIntervalSince1970: 1_793_534_400)
    static let policy = ValidationPolicy.fixed(now: now)
    static let decoder = DailyValueDecoder(catalog: .builtin, policy: policy)
    static let idKey = Array("test-secret-key-0123456789abcdef".utf8)
    static let configuration = ObservationMapper.Configuration(
        identifierSystem: "https://fhir.example.org/identifiers/daily-summary", idKey: idKey,
        metaSource: "https://fhir.example.org/sources/daily-values-pipeline/1.0.0", finalGraceSeconds: 6 * 3600)
    static let mapper = try! ObservationMapper(configuration: configuration)

    /// A valid heart-rate event with `overrides` replacing or adding members (`nil` removes one).
    static func event(_ overrides: [String: String?] = [:]) -> [UInt8] {
        let members: [(String, String)] = [
            ("schema", "1"), ("patient", "\"p-000123\""), ("metric", "\"heart_rate\""), ("day", "\"2026-10-01\""),
            ("timeZone", "\"Europe/Bratislava\""), ("value", "71.4"), ("min", "48"), ("max", "162"),
            ("unit", "\"/min\""), ("version", "1759384503000"),
            ("source", #"{"name":"Apple Watch","bundleId":"com.apple.health","model":"Watch7,3"}"#),
        ]
        return object(members, overrides)
    }

    /// A JSON object of `members` (raw JSON values) with `overrides` replacing or adding members (`nil` removes one).
    static func object(_ members: [(String, String)], _ overrides: [String: String?]) -> [UInt8] {
        var members = members
        for (key, value) in overrides.sorted(by: { $0.key < $1.key }) {
            if let index = members.firstIndex(where: { $0.0 == key }) {
                if let value { members[index].1 = value } else { members.remove(at: index) }
            } else if let value {
                members.append((key, value))
            }
        }
        return Array(("{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}").utf8)
    }

    /// The package root.
    static func packageRoot() -> URL { TestEnvironment.root }

    /// Milliseconds since the epoch of an ISO 8601 instant.
    static func ms(_ iso: String) -> Int64 {
        let formatter = ISO8601DateFormatter()
        return Int64(formatter.date(from: iso)!.timeIntervalSince1970 * 1000)
    }
}
