/// What a ledger entry asks of a store (`storectl erase --mode`, docs/PRIVACY.md).
public enum ErasureMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// Delete everything stored of the person and refuse every later event of theirs, for good: a person who
    /// returns gets a new id.
    case erase
    /// Keep what is stored and refuse every new event, until a `lift` entry (consent given again).
    case withdraw
    /// Ends a withdrawal: the person's events are stored again (an erasure cannot be lifted).
    case lift
}
