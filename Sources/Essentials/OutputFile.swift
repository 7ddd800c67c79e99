import Glibc

/// A file opened for writing through its descriptor: written in full, flushed to disk, closed once — what the
/// exports and the producer's output used Foundation's `FileHandle` for, without Foundation (which brings ICU).
package final class OutputFile {
    private var descriptor: Int32
    private let path: String

    /// Opens `path` for writing, created (mode 0644 before the umask) and truncated.
    /// - Throws: ``OutputFileError`` with the path and the system's message.
    package init(path: String) throws(OutputFileError) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        self.path = path
        guard descriptor >= 0 else { throw OutputFileError(path: path, operation: "open", errno: errno) }
    }

    /// Standard output (never closed by ``close()``).
    package init() {
        descriptor = STDOUT_FILENO
        path = "standard output"
    }

    deinit { if descriptor > STDERR_FILENO { Glibc.close(descriptor) } }

    /// Writes all of `bytes`, retrying short writes and `EINTR`.
    package func write(_ bytes: some Collection<UInt8>) throws(OutputFileError) {
        let written: Int32? = Array(bytes).withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count > 0 {
                    offset += count
                } else if !(count < 0 && errno == EINTR) {
                    return errno
                }
            }
            return nil
        }
        if let error = written { throw OutputFileError(path: path, operation: "write", errno: error) }
    }

    /// Flushes the file's data to the disk (`fsync`).
    package func synchronize() throws(OutputFileError) {
        guard fsync(descriptor) == 0 else { throw OutputFileError(path: path, operation: "fsync", errno: errno) }
    }

    /// Closes the file; later calls do nothing.
    package func close() throws(OutputFileError) {
        guard descriptor > STDERR_FILENO else { return }
        let result = Glibc.close(descriptor)
        descriptor = -1
        guard result == 0 else { throw OutputFileError(path: path, operation: "close", errno: errno) }
    }
}
