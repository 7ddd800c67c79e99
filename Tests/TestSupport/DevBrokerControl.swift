import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The fault-control channel of a `devbroker` started with `--control FIFO`.
public enum DevBrokerControl {
    /// Sends one fault-injection command (`down 2`, `rtt -1 500`, …) and waits for devbroker's answer on its stdout.
    /// - Returns: the `ok …` answer line.
    /// - Throws: `TestSetupError` when the broker answers `error …` or not at all within 10 s.
    @discardableResult
    public static func send(_ command: String, fifo: URL, broker: ChildProcess) async throws -> String {
        let answersBefore = broker.stdout.split(separator: "\n").count
        let fd = open(fifo.path, O_WRONLY | O_NONBLOCK)
        guard fd >= 0 else {
            throw TestSetupError("control '\(command)': cannot open \(fifo.path): \(String(cString: strerror(errno)))")
        }
        let line = Array((command + "\n").utf8)
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == line.count else { throw TestSetupError("control '\(command)': short write to the FIFO") }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let answers = broker.stdout.split(separator: "\n").dropFirst(answersBefore)
            if let answer = answers.first(where: { $0.hasPrefix("ok ") || $0.hasPrefix("error ") }) {
                guard answer.hasPrefix("ok ") else { throw TestSetupError("control '\(command)': \(answer)") }
                return String(answer)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSetupError("control '\(command)': no answer from devbroker: \(broker.stderr.suffix(500))")
    }
}
