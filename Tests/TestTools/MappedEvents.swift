import DailyValueContract
import Foundation
import ObservationMapping

/// The Observations the worker's mapper makes of a file of DailyValue events (`producer generate --out`): invalid
/// lines are left out, every record stamped with one record timestamp.
enum MappedEvents {
    /// Each valid event's record, in file order, mapped with `idKey`.
    static func records(ofFile path: String, idKey: String) throws -> [ObservationRecord] {
        let mapper = try ObservationMapper(configuration: .init(idKey: Array(idKey.utf8)))
        let decoder = DailyValueDecoder()
        let timestamp = Int64(Date().timeIntervalSince1970 * 1000)
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard let value = try? decoder.validate(Array(line.utf8), recordTimestampMs: timestamp) else { return nil }
            return try? mapper.map(value, recordTimestampMs: timestamp)
        }
    }
}
