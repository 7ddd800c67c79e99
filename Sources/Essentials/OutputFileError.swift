import Glibc

/// Why an ``OutputFile`` operation failed: the path, the call and the system's message.
package struct OutputFileError: Error, CustomStringConvertible {
    package let path: String
    package let operation: String
    package let errno: Int32

    package var description: String { "\(operation) \(path): \(String(cString: strerror(errno)))" }
}
