import Foundation

/// Diagnostics for people: one line at a time on standard error, so standard output stays clean for data.
public enum StandardError {
    /// Writes `message` and a newline to standard error at once (unbuffered).
    public static func print(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
