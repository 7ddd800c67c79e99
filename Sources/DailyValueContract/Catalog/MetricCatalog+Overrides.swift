#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// A deployment's catalog file, merged by key over a base catalog without rebuilding:
//
//     {"metrics": {
//        "heart_rate": {"plausibleMax": 250},
//        "distance_walking_running": {"codings": [
//            {"system": "http://loinc.org", "code": "41953-1", "display": "…"}]},
//        "walking_steadiness": {"codings": [...], "text": "...", "ucum": "%", "unitDisplay": "%",
//                               "aggregation": "latest", "category": "activity",
//                               "plausibleMin": 0, "plausibleMax": 100}
//     }}
//
// Fields present in an entry replace the base entry's fields; a new key must give every field without a default.
// Unknown fields are rejected (a typo must not silently keep the old value). ``MetricCatalog/exportJSON()`` writes
// the same format with every field, so an exported catalog loads back unchanged.

extension MetricCatalog {
    /// `base` with the entries of the JSON file at `url` merged in by key.
    /// - Throws: ``MetricCatalogError`` with the file, the key and the rule on unreadable or invalid input.
    public static func load(overridesFrom url: URL, base: MetricCatalog = .builtin) throws(MetricCatalogError)
        -> MetricCatalog
    {
        let file = url.path
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw MetricCatalogError(file: file, "cannot read the file: \(error)")
        }
        let patches: [String: MetricPatch]
        do { patches = try JSONDecoder().decode(OverrideFile.self, from: data).metrics } catch {
            throw MetricCatalogError(file: file, key: Self.metricKey(of: error), Self.describe(error))
        }
        var merged = base.metrics
        for key in patches.keys.sorted() {
            do {
                merged[key] = try patches[key]!.applied(to: merged[key], key: key)
                try check(merged[key]!)
            } catch {
                throw MetricCatalogError(file: file, key: key, error.message)
            }
        }
        return MetricCatalog(unchecked: Array(merged.values))
    }

    /// The whole catalog in the override-file format (sorted keys, pretty-printed), e.g. for the FHIR lint script.
    public func exportJSON() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain value types into JSON cannot fail.
        return try! encoder.encode(ExportFile(metrics: metrics))
    }

    // MARK: - Decoding errors

    private static func metricKey(of error: any Error) -> String? {
        guard let error = error as? DecodingError else { return nil }
        let path: [any CodingKey]
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            path = context.codingPath
        @unknown default: return nil
        }
        return path.count >= 2 && path[0].stringValue == "metrics" ? path[1].stringValue : nil
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case let error as MetricCatalogError: return error.message
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue)
            let field = (path.first == "metrics" && path.count >= 2 ? path.dropFirst(2) : path[...])
                .joined(separator: ".")
            return (field.isEmpty ? "" : "field `\(field)`: ") + context.debugDescription
        case DecodingError.keyNotFound(let key, _): return "missing field `\(key.stringValue)`"
        default: return "invalid JSON: \(error)"
        }
    }
}

// MARK: - File shapes

private struct OverrideFile: Decodable {
    var metrics: [String: MetricPatch]
}

private struct ExportFile: Encodable {
    var metrics: [String: Metric]
}
