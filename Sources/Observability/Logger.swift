import Essentials
import JSON
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Structured logs: one JSON object per line on stderr.
///
/// Callers pass only operational fields (topics, partitions, offsets, counts, error texts). Health values and raw
/// patient ids are never logged; events are identified by topic/partition/offset.
public final class Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        public init?(name: String) {
            switch name.lowercased() {
            case "debug", "trace": self = .debug
            case "info": self = .info
            case "warn", "warning": self = .warning
            case "error": self = .error
            default: return nil
            }
        }

        /// The level of a syslog severity (librdkafka's log lines): 0–3 error, 4 warning, 5–6 info, 7 debug.
        public init(syslogSeverity severity: Int32) {
            switch severity {
            case ...3: self = .error
            case 4: self = .warning
            case 5...6: self = .info
            default: self = .debug
            }
        }

        var name: String { ["debug", "info", "warning", "error"][rawValue] }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A log field value.
    public enum Value: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        case string(String)
        case int(Int64)
        case double(Double)
        case bool(Bool)

        public init(stringLiteral value: String) { self = .string(value) }
        public init(integerLiteral value: Int64) { self = .int(value) }
    }

    private let minimum: Level
    private let baseFields: [(String, Value)]
    private let lock = Mutex(())

    public init(level: Level, fields: [(String, Value)] = []) {
        self.minimum = level
        self.baseFields = fields
    }

    public func isEnabled(_ level: Level) -> Bool { level >= minimum }

    public func debug(_ message: String, _ fields: [(String, Value)] = []) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: [(String, Value)] = []) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: [(String, Value)] = []) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: [(String, Value)] = []) { log(.error, message, fields) }

    public func log(_ level: Level, _ message: String, _ fields: [(String, Value)] = []) {
        guard level >= minimum else { return }
        var line = "{\"ts\":\"\(Self.timestamp())\",\"level\":\"\(level.name)\",\"msg\":"
        Self.appendJSONString(message, to: &line)
        for (key, value) in baseFields + fields {
            line += ","
            Self.appendJSONString(key, to: &line)
            line += ":"
            switch value {
            case .string(let s): Self.appendJSONString(s, to: &line)
            case .int(let i): line += String(i)
            case .double(let d): line += d.isFinite ? String(d) : "null"
            case .bool(let b): line += b ? "true" : "false"
            }
        }
        line += "}\n"
        lock.withLock { _ in
            FileDescriptorOutput.write(line, to: STDERR_FILENO)
        }
    }

    private static func timestamp() -> String {
        RFC3339.string(Date())
    }

    static func appendJSONString(_ s: String, to out: inout String) {
        var bytes: [UInt8] = []
        JSONWriter.appendQuoted(s, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }
}
