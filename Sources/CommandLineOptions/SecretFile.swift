#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A file a tool is given by path because its contents are secret (`--id-key-file`, `--store-file`,
/// `--kafka-property-file`, `DVP_XFILE_*`): read once at start. Errors name the option and the path, never the
/// contents.
public struct SecretFile: Sendable {
    /// The option as the operator wrote it, e.g. `--store-file` or `--kafka-property-file sasl.password`.
    public let option: String
    public let path: String

    /// A file named by `option`.
    public init(option: String, path: String) {
        self.option = option
        self.path = path
    }

    /// The whole file.
    /// - Throws: ``UsageError`` (exit 2) when it is missing, unreadable or empty.
    public func bytes() throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError(option: option, "\(option): cannot read '\(path)' (missing or not readable)")
        }
        guard !data.isEmpty else { throw UsageError(option: option, "\(option): '\(path)' is empty") }
        return Array(data)
    }

    /// The file as UTF-8 text without its trailing line breaks (a Secret made with `--from-file` often ends in one).
    /// - Throws: ``UsageError`` (exit 2) when it is missing, unreadable, empty, blank or not UTF-8.
    public func text() throws -> String {
        var bytes = try bytes()
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty else { throw UsageError(option: option, "\(option): '\(path)' is empty") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw UsageError(option: option, "\(option): '\(path)' is not UTF-8 text")
        }
        return text
    }

    /// The first line of the file (a location such as a PostgreSQL URI).
    /// - Throws: ``UsageError`` (exit 2) when the file cannot be read or its first line is empty.
    public func firstLine() throws -> String {
        let line = try text().unicodeScalars.prefix { $0 != "\n" && $0 != "\r" }
        guard !line.isEmpty else { throw UsageError(option: option, "\(option): '\(path)' has an empty first line") }
        return String(String.UnicodeScalarView(line))
    }

    /// Whether anyone besides the process's own user and groups may read or write the file (symbolic links, as in
    /// a Kubernetes Secret volume, are followed): any permission for others, or for a group the worker is not in.
    ///
    /// A group the process belongs to is tolerated: the kubelet makes every file of a Secret volume readable by the
    /// pod's `fsGroup` (0400 becomes 0440), a group only the pod's own containers hold.
    public func isExposed() -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let mode = status.st_mode
        if mode & 0o007 != 0 { return true }
        guard mode & 0o070 != 0 else { return false }
        return !Self.workerGroups().contains(status.st_gid)
    }

    /// The process's effective group and its supplementary groups.
    private static func workerGroups() -> Set<gid_t> {
        var groups = [gid_t](repeating: 0, count: Int(getgroups(0, nil)) + 1)
        let count = getgroups(Int32(groups.count), &groups)
        return Set(groups.prefix(Int(max(count, 0)))).union([getegid()])
    }
}
