import Foundation
import TestSupport

extension PipelineHarness {
    /// The devbroker's fault-control FIFO (created by `devbroker --control`).
    var controlFIFO: URL { directory.appendingPathComponent("control") }

    /// Sends one fault-injection command (`down 2`, `err 8 27 5`, …) and waits for devbroker's answer.
    /// - Returns: the `ok …` answer line.
    /// - Throws: `TestSetupError` when the broker answers `error …` or not at all within 10 s.
    @discardableResult
    func control(_ command: String) async throws -> String {
        guard let broker else { throw TestSetupError("control '\(command)': the broker is not running") }
        return try await DevBrokerControl.send(command, fifo: controlFIFO, broker: broker)
    }
}
