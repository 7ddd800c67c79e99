import Essentials
import Producer

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Writes lines to a file (or stdout for `-`) through a 1 MiB buffer, so a million events are cheap to write.
final class BufferedFileWriter {
    private let handle: OutputFile
    private let path: String
    private var buffer: [UInt8] = []
    private static let capacity = 1 << 20

    /// Creates or truncates `path` in place (`open` with `O_CREAT | O_TRUNC`, so a device such as `/dev/null`, a
    /// FIFO or a symlink's target is written to, never replaced); `-` is standard output.
    ///
    /// - Throws: ``ProducerConfigurationError`` naming `option` when the file cannot be opened.
    init(path: String, option: String) throws(ProducerConfigurationError) {
        self.path = path
        if path == "-" {
            handle = OutputFile()
        } else {
            do {
                handle = try OutputFile(path: path)
            } catch {
                let reason = String(cString: strerror(error.errno))
                throw ProducerConfigurationError(option: option, rule: "cannot open '\(path)' for writing: \(reason)")
            }
        }
        buffer.reserveCapacity(Self.capacity)
    }

    deinit {
        try? flush()
        if path != "-" { try? handle.close() }
    }

    /// Appends `bytes` and a newline.
    func writeLine(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= Self.capacity { try flush() }
    }

    func writeLine(_ text: String) throws {
        try writeLine(Array(text.utf8))
    }

    /// Writes out everything buffered.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
