import Foundation

/// Diagnostics, progress and summaries go to stderr, so stdout stays clean for `--out -`.
enum StandardError {
    static func print(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
