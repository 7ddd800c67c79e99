import Foundation

/// One stored day as the test reads it: the columns, and what the resource says.
struct StoredDay: Equatable {
    var version: Int64
    var versionId: Int64
    var status: String
    var resourceVersionId: String?
    var resourceStatus: String?
    var value: Double?
}

/// The store states seen one after another, checked against the stream and against the state before.
struct StoreHistory {
    let stream: LifecycleStream
    /// Rule breaks seen, in order.
    private(set) var violations: [String] = []
    /// Days seen final at their first (preliminary) version, i.e. flipped by finalize.
    private var flipped: Set<String> = []
    /// Days flipped by finalize and seen later at a higher version: written by the worker after the flip.
    private(set) var flippedThenRewritten: Set<String> = []
    private var last: [String: StoredDay] = [:]

    init(stream: LifecycleStream) { self.stream = stream }

    /// Checks one state: `meta.versionId` and `status` in the resource equal the columns; the row holds a version
    /// sent for the day with that version's value; against the state before, the version never goes back,
    /// `meta.versionId` never goes back and grows with every change, and a final or amended day never turns
    /// preliminary again.
    mutating func observe(_ rows: [String: StoredDay]) {
        for (key, row) in rows.sorted(by: { $0.key < $1.key }) {
            guard let expected = stream.expected[key] else {
                violations.append("\(key): stored but never sent")
                continue
            }
            if row.resourceVersionId != String(row.versionId) || row.resourceStatus != row.status {
                violations.append(
                    "\(key): resource says \(row.resourceStatus ?? "-") v\(row.resourceVersionId ?? "-"), "
                        + "columns \(row.status) v\(row.versionId)")
            }
            if let value = expected.sent[row.version] {
                if row.value != Double(value) {
                    violations.append("\(key): v\(row.version) holds \(row.value ?? -1), sent \(value)")
                }
            } else {
                violations.append("\(key): holds version \(row.version), never sent")
            }
            if let before = last[key] {
                if row.version < before.version {
                    violations.append("\(key): version \(before.version) → \(row.version)")
                }
                if row.versionId < before.versionId || (row != before && row.versionId == before.versionId) {
                    violations.append(
                        "\(key): meta.versionId \(before.versionId) → \(row.versionId) (\(before) → \(row))")
                }
                if before.status != "preliminary" && row.status == "preliminary" {
                    violations.append("\(key): \(before.status) → preliminary")
                }
            }
            if let first = expected.firstPreliminary {
                if row.status == "final" && row.version == first { flipped.insert(key) }
                if flipped.contains(key) && row.version > first { flippedThenRewritten.insert(key) }
            }
            last[key] = row
        }
        for key in last.keys where rows[key] == nil { violations.append("\(key): disappeared") }
    }
}
