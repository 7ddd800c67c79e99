import Foundation
import Producer

/// Writes lines to a file (or stdout for `-`) through a 1 MiB buffer, so a million events are cheap to write.
final class BufferedFileWriter {
    private let handle: FileHandle
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
            handle = FileHandle.standardOutput
        } else {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                let reason = String(cString: strerror(errno))
                throw ProducerConfigurationError(option: option, rule: "cannot open '\(path)' for writing: \(reason)")
            }
            handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
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
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
