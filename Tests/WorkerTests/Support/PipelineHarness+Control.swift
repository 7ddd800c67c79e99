import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

extension PipelineHarness {
    /// The devbroker's fault-control FIFO (created by `devbroker --control`).
    var controlFIFO: URL { directory.appendingPathComponent("control") }

    /// Sends one fault-injection command (`down 2`, `err 8 27 5`, …) and waits for devbroker's answer.
    /// - Returns: the `ok …` answer line.
    /// - Throws: `TestSetupError` when the broker answers `error …` or not at all within 10 s.
    @discardableResult
    func control(_ command: String) async throws -> String {
        guard let broker else { throw TestSetupError("control '\(command)': the broker is not running") }
        let answersBefore = broker.stdout.split(separator: "\n").count
        let fd = open(controlFIFO.path, O_WRONLY | O_NONBLOCK)
        guard fd >= 0 else {
            throw TestSetupError("control '\(command)': cannot open \(controlFIFO.path): \(String(cString: strerror(errno)))")
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
