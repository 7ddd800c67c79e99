#if canImport(Glibc)
    import Glibc
#endif

/// A bootstrap file: what `--brokers-file PATH` readers take, and what a development broker
/// (`devbroker --bootstrap-file PATH`) writes.
///
/// Line 1 is the bootstrap list (readers that take the first line keep working); a development broker adds
/// ``marker``, which says the brokers are a throwaway development cluster. A real cluster's bootstrap list never
/// carries it, so the worker can tell "a development broker on this host" from "somebody's cluster" without asking
/// the brokers, whatever implements the development broker.
public struct KafkaBootstrapFile: Sendable, Equatable {
    /// The marker line a development broker writes after the bootstrap list.
    public static let marker = "# devbroker: librdkafka mock cluster, in memory, for development and tests only"

    /// Comma-separated `host:port` list.
    public var bootstrapServers: String
    /// True when the file carries ``marker``.
    public var isDevelopmentBroker: Bool

    /// Creates the value from its fields.
    public init(bootstrapServers: String, isDevelopmentBroker: Bool) {
        self.bootstrapServers = bootstrapServers
        self.isDevelopmentBroker = isDevelopmentBroker
    }

    /// Reads a bootstrap file: the first line that is neither empty nor a `#` comment is the bootstrap list;
    /// the marker may be on any line.
    public init(parsing text: String) {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingSpaces }
        bootstrapServers = lines.first { !$0.isEmpty && !$0.hasPrefix("#") } ?? ""
        isDevelopmentBroker = lines.contains(Self.marker)
    }

    /// A `--brokers-file`'s content, or nil when its text names no servers (for
    /// `ParsedCommandLine.bootstrapServers(parsingFile:)`, the one reader of the file).
    public static func naming(servers text: String) -> Self? {
        let file = Self(parsing: text)
        return file.bootstrapServers.isEmpty ? nil : file
    }

    /// The file's text: the bootstrap list, then the marker when `isDevelopmentBroker`.
    public var text: String {
        bootstrapServers + "\n" + (isDevelopmentBroker ? Self.marker + "\n" : "")
    }

    /// True when a development broker wrote the file and every bootstrap address is on this host's loopback
    /// interface (a development broker listens there only). A copied file that points elsewhere does not pass.
    public var isLocalDevelopmentBroker: Bool {
        isDevelopmentBroker && Self.isLoopbackOnly(bootstrapServers)
    }

    /// True when `list` is non-empty and every address in it is `localhost`, in 127.0.0.0/8 or `::1`
    /// (`host:port`, `[v6]:port`, optionally with a `PLAINTEXT://`-style prefix).
    public static func isLoopbackOnly(_ list: String) -> Bool {
        let addresses = list.split(separator: ",").map { String($0.trimmingSpaces) }
        return !addresses.isEmpty && addresses.allSatisfy { isLoopback(host(of: $0)) }
    }

    static func host(of address: String) -> String {
        var rest = Substring(address)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            return String(rest[rest.index(after: rest.startIndex)..<close])
        }
        if rest.filter({ $0 == ":" }).count == 1, let colon = rest.firstIndex(of: ":") {
            return String(rest[..<colon])
        }
        return String(rest)
    }

    static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { $0.elementsEqual([UInt8](repeating: 0, count: 15) + [1]) }
        }
        return false
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
