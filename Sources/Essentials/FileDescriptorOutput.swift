import Glibc

/// Unbuffered writes of text to a file descriptor: standard output and error for progress lines and diagnostics that
/// must show at once, without Foundation's `FileHandle` (which brings ICU).
package enum FileDescriptorOutput {
    /// Writes all of `text` to `descriptor` (`STDOUT_FILENO`, `STDERR_FILENO`, …), retrying short writes and
    /// `EINTR`; other errors (a closed pipe) drop the rest, as a diagnostic has nowhere else to go.
    package static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
