import DailyValueContract
import JSON
import ObservationMapping

extension StoredDocument {
    /// A resource as a store reads it whole today, as a document that reads back as the very same bytes: for
    /// `storectl migrate` of a SQLite row of the older shape (its text kept in the mapper's member order, so unlike
    /// ``fromSchemaThree(resource:metric:hasStatus:)`` nothing is reordered).
    ///
    /// The text must open `meta` with `"versionId"` and `"lastUpdated"` holding `versionId` and `lastUpdated` (as
    /// rows written since the lifecycle columns do), and hold the status, when `status` is set, as a top-level member
    /// after `meta`. The parts are then cut around those (``resource(_:parts:versionId:lastUpdated:status:)``), and
    /// the resource they give is compared with `text`.
    /// - Returns: nil when the text has another shape or would not read back byte for byte (the caller keeps the row
    ///   as it is: it stays readable whole).
    package static func fromResourceText(
        _ text: [UInt8], metric: String, versionId: Int64, lastUpdated: String, status: String?
    ) -> (content: [UInt8], parts: [Range<Int>], facts: ObservationFacts?)? {
        guard let members = TopLevelMembers(text)?.members,
            let meta = members.first(where: { $0.key.elementsEqual("meta".utf8) }), text[meta.value.lowerBound] == 0x7B
        else { return nil }
        let stamp = Array(#""versionId":"\#(versionId)","lastUpdated":"\#(lastUpdated)""#.utf8)
        let open = meta.value.lowerBound + 1
        guard text[open...].starts(with: stamp), open + stamp.count < text.count else { return nil }
        var tailStart = open + stamp.count
        if text[tailStart] == 0x2C { tailStart += 1 } else if text[tailStart] != 0x7D { return nil }
        var content = Array(text[..<open])
        let headEnd = content.count
        let parts: [Range<Int>]
        if status != nil, let slot = members.first(where: { $0.key.elementsEqual("status".utf8) }),
            slot.value.lowerBound > meta.value.upperBound
        {
            content += text[tailStart..<slot.value.lowerBound]
            let tailEnd = content.count
            content += text[slot.value.upperBound...]
            parts = [0..<headEnd, headEnd..<tailEnd, tailEnd..<content.count]
        } else {
            content += text[tailStart...]
            parts = [0..<headEnd, headEnd..<content.count]
        }
        let back = resource(content, parts: parts, versionId: versionId, lastUpdated: lastUpdated, status: status)
        guard back.utf8.elementsEqual(text), let parsed = try? JSONValue.parse(text, maxDepth: 64) else { return nil }
        return (content, parts, ObservationFacts(resource: parsed, metric: MetricCatalog.builtin.metrics[metric]))
    }
}

/// The members of a JSON object's top level: each key's bytes (without quotes) and its value's byte range. For text
/// a database printed (valid JSON); nil for anything else it cannot walk.
private struct TopLevelMembers {
    var members: [(key: ArraySlice<UInt8>, value: Range<Int>)] = []

    init?(_ text: [UInt8]) {
        var i = 0
        func skipSpace() { while i < text.count, [0x20, 0x0A, 0x0D, 0x09].contains(text[i]) { i += 1 } }
        /// Past the string opening at `i`; false when it does not end.
        func skipString() -> Bool {
            i += 1
            while i < text.count {
                if text[i] == 0x5C { i += 2; continue }
                i += 1
                if text[i - 1] == 0x22 { return true }
            }
            return false
        }
        /// Past the value starting at `i`.
        func skipValue() -> Bool {
            guard i < text.count else { return false }
            if text[i] == 0x22 { return skipString() }
            var depth = 0
            while i < text.count {
                switch text[i] {
                case 0x22: if !skipString() { return false }; continue
                case 0x7B, 0x5B: depth += 1
                case 0x7D, 0x5D:
                    if depth == 0 { return true }
                    depth -= 1
                    if depth == 0 { i += 1; return true }
                case 0x2C, 0x20, 0x0A, 0x0D, 0x09: if depth == 0 { return true }
                default: break
                }
                i += 1
            }
            return depth == 0
        }
        skipSpace()
        guard i < text.count, text[i] == 0x7B else { return nil }
        i += 1
        skipSpace()
        if i < text.count, text[i] == 0x7D { return }
        while i < text.count {
            skipSpace()
            guard i < text.count, text[i] == 0x22 else { return nil }
            let keyStart = i + 1
            guard skipString() else { return nil }
            let key = text[keyStart..<(i - 1)]
            skipSpace()
            guard i < text.count, text[i] == 0x3A else { return nil }
            i += 1
            skipSpace()
            let valueStart = i
            guard skipValue() else { return nil }
            members.append((key, valueStart..<i))
            skipSpace()
            guard i < text.count else { return nil }
            if text[i] == 0x7D { return }
            guard text[i] == 0x2C else { return nil }
            i += 1
        }
        return nil
    }
}
