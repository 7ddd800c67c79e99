import Essentials

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Diagnostics for people: one line at a time on standard error, so standard output stays clean for data.
public enum StandardError {
    /// Writes `message` and a newline to standard error at once (unbuffered).
    public static func print(_ message: String) {
        FileDescriptorOutput.write(message + "\n", to: STDERR_FILENO)
    }
}
