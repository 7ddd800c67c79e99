import CommandLineOptions
import JSON
import StoreCore

/// The ledger as `storectl erasures --json` writes it and `erase --reapply-ledger` reads it: one JSON object per
/// line (`{"sequence":…,"pseudonym":"<64 hex>","mode":…,"reference":…,"requestedAt":…}`). Only `pseudonym` and
/// `mode` are read back; lines of `lift` entries and persons lifted later are re-applied as what they ended as.
enum LedgerFile {
    static func line(_ entry: ErasureLedgerEntry) -> String {
        JSONWriter.string { w in
            w.beginObject()
            w.key("sequence")
            w.value(entry.sequence)
            w.member("pseudonym", entry.pseudonym.hex)
            w.member("mode", entry.mode.rawValue)
            w.member("reference", entry.reference)
            w.member("requestedAt", entry.requestedAt)
            if let completed = entry.completedAt { w.member("completedAt", completed) }
            w.endObject()
        }
    }

    /// The persons the file's entries still refuse, with the mode to re-apply: `erase` for the erased, `withdraw` for
    /// withdrawals not lifted later.
    /// - Throws: ``UsageError`` naming the line of a malformed entry.
    static func read(_ path: String) throws -> [(PatientPseudonym, ErasureMode)] {
        let text = try SecretFile(option: "--reapply-ledger", path: path).text()
        var modes: [PatientPseudonym: [ErasureMode]] = [:]
        var order: [PatientPseudonym] = []
        for (number, line) in text.split(separator: "\n").enumerated() where !line.allSatisfy(\.isWhitespace) {
            guard case .object(let members)? = try? JSONValue.parse(Array(line.utf8)),
                case .string(let hex)? = members["pseudonym"], let pseudonym = PatientPseudonym(hex: hex),
                case .string(let modeText)? = members["mode"], let mode = ErasureMode(rawValue: modeText)
            else {
                throw UsageError.invalid(
                    "--reapply-ledger", "line \(number + 1): not an entry of `storectl erasures --json`")
            }
            if modes[pseudonym] == nil { order.append(pseudonym) }
            modes[pseudonym, default: []].append(mode)
        }
        return order.compactMap { pseudonym in
            switch ErasureStatus(modes[pseudonym]!) {
            case .erased: (pseudonym, .erase)
            case .withdrawn: (pseudonym, .withdraw)
            case .none: nil
            }
        }
    }
}
