/// Where a person stands in an erasure ledger, from their entries in ledger order.
package enum ErasureStatus: Sendable, Hashable {
    case none, withdrawn, erased

    /// The status after `modes` (one person's entries, oldest first): an erasure is final; a lift ends a withdrawal.
    package init(_ modes: some Sequence<ErasureMode>) {
        var status = ErasureStatus.none
        for mode in modes where status != .erased {
            switch mode {
            case .erase: status = .erased
            case .withdraw: status = .withdrawn
            case .lift: status = .none
            }
        }
        self = status
    }

    /// Whether a request of `mode` adds an entry: an erasure unless erased already, a withdrawal only of a person
    /// with none in force, a lift only of a withdrawal in force.
    /// - Throws: ``StoreError`` (`usage`) for a lift of an erased person.
    package func needsEntry(_ mode: ErasureMode) throws -> Bool {
        switch mode {
        case .erase: return self != .erased
        case .withdraw: return self == .none
        case .lift:
            guard self != .erased else {
                throw StoreError(.usage, "an erasure cannot be lifted: a person who returns is given a new patient id")
            }
            return self == .withdrawn
        }
    }

    /// Each person's status after `entries` (pseudonym and mode, in ledger order).
    package static func statuses(
        _ entries: some Sequence<(PatientPseudonym, ErasureMode)>
    ) -> [PatientPseudonym: ErasureStatus] {
        var modes: [PatientPseudonym: [ErasureMode]] = [:]
        for (pseudonym, mode) in entries { modes[pseudonym, default: []].append(mode) }
        return modes.mapValues { ErasureStatus($0) }
    }

    /// The persons `entries` (in ledger order) refuse: erased, or withdrawn and not lifted since.
    package static func refused(_ entries: some Sequence<(PatientPseudonym, ErasureMode)>) -> Set<PatientPseudonym> {
        Set(statuses(entries).filter { $0.value != .none }.keys)
    }
}
