/// Bad command-line arguments: printed with a hint to `--help`, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    var message: String

    init(_ message: String) { self.message = message }

    var description: String { message }
}
