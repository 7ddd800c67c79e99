import Essentials
import Hashing
import JSON
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The FHIR store's erasure ledger as resources on the server itself (docs/PRIVACY.md): no patient id in clear
/// anywhere in it, only the person's ``PatientPseudonym``.
///
/// - One `Basic` resource per entry, `Basic/dvp-erasure-<32 random hex>` (written with `PUT`, update-as-create, as the
///   Observations are): `meta.tag` ``system``|`ledger-entry`; `code` ``system``|`erase`, `withdraw` or `lift`;
///   `identifier` ``pseudonymSystem``|the pseudonym's 64 hex digits; extensions (``extensionBase`` + name) for the
///   operator's `reference`, the `requested` and `completed` instants, the `deleted-observations` count, the
///   `history-kept` count (deleted Observations whose versions the server still keeps) and the `key-fingerprint`.
///   Entries are ordered by their `requested` instant (the writer's clock), then id; an entry's sequence is its
///   place in that order.
/// - One state resource, ``stateID`` (tag ``system``|`ledger-state`), rewritten after every change of the entries,
///   with a fresh nonce so that no server skips the write as a no-op: its `meta.versionId` is the ledger's
///   generation. It is created before the first entry, so a server without it has an empty ledger.
struct FHIRErasureLedger {
    /// The product's code system for ledger entries (`code`, the mode) and the ledger's tags.
    static let system = "https://fhir.example.org/CodeSystem/daily-values-pipeline/erasure"
    /// The `identifier.system` of an entry's pseudonym.
    static let pseudonymSystem = "https://fhir.example.org/identifiers/daily-values-pipeline/erasure-pseudonym"
    /// Extension URLs are this followed by the field's name.
    static let extensionBase = "https://fhir.example.org/StructureDefinition/daily-values-pipeline/erasure-"
    /// The id of the state resource whose version is the ledger's generation.
    static let stateID = "dvp-erasure-state"
    /// The search that lists every entry (each page 500 entries).
    static let entriesSearch = "Basic?_tag=" + PercentEncoding.encoded(system + "|ledger-entry") + "&_count=500"

    /// One entry as stored: the ledger entry, its resource id and the counts the report needs.
    struct Entry {
        var resourceID: String
        var entry: ErasureLedgerEntry
        /// Deleted Observations whose history the server keeps (no purge, or a purge that failed).
        var historyKept: Int64
        var keyFingerprint: String?
    }

    /// The ledger's state resource as read.
    struct State {
        /// `meta.versionId` as a number (a stable hash of an opaque one); 0 when the server has no state resource.
        var generation: Int64
        var keyFingerprint: String?
    }

    // MARK: - Writing

    /// A new entry's resource id.
    static func newResourceID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return "dvp-erasure-" + Hex.lowercase(bytes)
    }

    /// The JSON of `entry`'s resource.
    static func resource(_ entry: Entry) -> [UInt8] {
        let ledger = entry.entry
        var extensions: [[String: Any]] = [
            ["url": extensionBase + "reference", "valueString": ledger.reference],
            ["url": extensionBase + "requested", "valueDateTime": ledger.requestedAt],
            [
                "url": extensionBase + "deleted-observations",
                "valueInteger": Int(Int32(clamping: ledger.deleted.observations)),
            ],
            ["url": extensionBase + "history-kept", "valueInteger": Int(Int32(clamping: entry.historyKept))],
        ]
        if let completed = ledger.completedAt {
            extensions.append(["url": extensionBase + "completed", "valueDateTime": completed])
        }
        if let fingerprint = entry.keyFingerprint {
            extensions.append(["url": extensionBase + "key-fingerprint", "valueString": fingerprint])
        }
        let resource: [String: Any] = [
            "resourceType": "Basic", "id": entry.resourceID,
            "meta": ["tag": [["system": system, "code": "ledger-entry"]]],
            "identifier": [["system": pseudonymSystem, "value": ledger.pseudonym.hex]],
            "code": ["coding": [["system": system, "code": ledger.mode.rawValue]]],
            "extension": extensions,
        ]
        return JSONValue(any: resource)!.serialized()
    }

    /// The JSON of the state resource, with a fresh nonce (a server may skip an update that changes nothing).
    static func stateResource(keyFingerprint: String?, changedAt: String) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let nonce = Hex.lowercase((0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) })
        var extensions: [[String: Any]] = [
            ["url": extensionBase + "changed", "valueDateTime": changedAt],
            ["url": extensionBase + "nonce", "valueString": nonce],
        ]
        if let keyFingerprint {
            extensions.append(["url": extensionBase + "key-fingerprint", "valueString": keyFingerprint])
        }
        let resource: [String: Any] = [
            "resourceType": "Basic", "id": stateID,
            "meta": ["tag": [["system": system, "code": "ledger-state"]]],
            "code": ["coding": [["system": system, "code": "ledger-state"]]],
            "extension": extensions,
        ]
        return JSONValue(any: resource)!.serialized()
    }

    // MARK: - Reading

    /// The entry a `Basic` resource holds; nil for a resource that is not a well-formed entry of ours.
    static func entry(_ resource: [String: Any]) -> Entry? {
        guard resource["resourceType"] as? String == "Basic", let id = resource["id"] as? String,
            let identifiers = resource["identifier"] as? [[String: Any]],
            let hex = identifiers.first(where: { $0["system"] as? String == pseudonymSystem })?["value"] as? String,
            let pseudonym = PatientPseudonym(hex: hex),
            let codings = (resource["code"] as? [String: Any])?["coding"] as? [[String: Any]],
            let code = codings.first(where: { $0["system"] as? String == system })?["code"] as? String,
            let mode = ErasureMode(rawValue: code)
        else { return nil }
        let fields = extensions(resource)
        let entry = ErasureLedgerEntry(
            sequence: 0, pseudonym: pseudonym, mode: mode, reference: fields["reference"] as? String ?? "",
            requestedAt: fields["requested"] as? String ?? "", completedAt: fields["completed"] as? String,
            deleted: ErasureCounts(observations: integer(fields["deleted-observations"])))
        return Entry(
            resourceID: id, entry: entry, historyKept: integer(fields["history-kept"]),
            keyFingerprint: fields["key-fingerprint"] as? String)
    }

    /// The state a read of ``stateID`` answered: its resource and version id, or nil when the server has none.
    static func state(_ resource: [String: Any]?, versionId: String?) -> State {
        guard let resource else { return State(generation: 0) }
        let meta = resource["meta"] as? [String: Any]
        let version = (meta?["versionId"] as? String) ?? versionId ?? ""
        return State(
            generation: generation(of: version),
            keyFingerprint: extensions(resource)["key-fingerprint"] as? String)
    }

    /// Entries in the order they were written (requested instant, then id), numbered from 1.
    static func ordered(_ entries: [Entry]) -> [Entry] {
        let sorted = entries.sorted {
            let (left, right) = (RFC3339.parse($0.entry.requestedAt), RFC3339.parse($1.entry.requestedAt))
            if let left, let right, left != right { return left < right }
            return $0.resourceID < $1.resourceID
        }
        return sorted.enumerated().map { position, entry in
            var numbered = entry
            numbered.entry.sequence = Int64(position + 1)
            return numbered
        }
    }

    /// The persons the entries refuse: erased, or withdrawn and not lifted since (entries in ledger order).
    static func refused(_ ordered: [Entry]) -> Set<PatientPseudonym> {
        ErasureStatus.refused(ordered.map { ($0.entry.pseudonym, $0.entry.mode) })
    }

    /// A version id as a generation: the number itself, or for an opaque one (Google) a 64-bit FNV-1a hash.
    static func generation(of versionId: String) -> Int64 {
        if let number = Int64(versionId), number > 0 { return number }
        return Int64(bitPattern: FNV1a.hash(versionId.utf8) | 1)  // never 0, which means "no state resource"
    }

    private static func extensions(_ resource: [String: Any]) -> [String: Any] {
        var fields: [String: Any] = [:]
        for field in resource["extension"] as? [[String: Any]] ?? [] {
            guard let url = field["url"] as? String, url.hasPrefix(extensionBase) else { continue }
            let value = field.first { $0.key.hasPrefix("value") }?.value
            fields[String(url.dropFirst(extensionBase.count))] = value
        }
        return fields
    }

    private static func integer(_ value: Any?) -> Int64 {
        (value as? Double).map { Int64(exactly: $0.rounded()) ?? 0 } ?? 0
    }
}
