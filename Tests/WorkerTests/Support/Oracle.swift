import Foundation

/// The generator's truth about a generated stream (`producer generate --oracle-out`), independent of our decoder.
struct Oracle {
    /// Highest valid version per identity key `patient/metric/day`.
    var versions: [String: Int64] = [:]
    /// Invalid events: their line number (1-based) and intended class.
    var invalid: [(line: Int, className: String)] = []

    init(contentsOf url: URL) throws {
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t")
            if fields.first == "invalid", fields.count == 3, let n = Int(fields[1]) {
                invalid.append((n, String(fields[2])))
            } else if fields.count == 2, let version = Int64(fields[1]) {
                versions[String(fields[0]), default: Int64.min] = max(versions[String(fields[0])] ?? Int64.min, version)
            }
        }
    }

    /// Lines where the store differs from the oracle (missing, extra, or another version), at most `limit`.
    func differences(from store: [String: Int64], limit: Int = 10) -> [String] {
        var out: [String] = []
        for (key, version) in versions.sorted(by: { $0.key < $1.key }) where store[key] != version {
            out.append("\(key): expected \(version), stored \(store[key].map(String.init) ?? "nothing")")
            if out.count >= limit { return out }
        }
        for key in store.keys.sorted() where versions[key] == nil {
            out.append("\(key): stored but never sent valid")
            if out.count >= limit { return out }
        }
        return out
    }
}
