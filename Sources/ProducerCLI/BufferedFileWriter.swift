import Foundation
import Producer

/// Writes lines to a file (or stdout for `-`) through a 1 MiB buffer, so a million events are cheap to write.
final class BufferedFileWriter {
    private let handle: FileHandle
    private let path: String
    private var buffer: [UInt8] = []
    private static let capacity = 1 << 20

    /// Creates or truncates `path`; `-` is standard output.
    ///
    /// - Throws: ``ProducerConfigurationError`` naming `option` when the file cannot be created.
    init(path: String, option: String) throws(ProducerConfigurationError) {
        self.path = path
        if path == "-" {
            handle = FileHandle.standardOutput
        } else {
            guard FileManager.default.createFile(atPath: path, contents: nil),
                let handle = FileHandle(forWritingAtPath: path)
            else { throw ProducerConfigurationError(option: option, rule: "cannot create '\(path)'") }
            self.handle = handle
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
