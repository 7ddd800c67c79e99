import Foundation

/// Holds the test worker before it reads its configuration: with `DVP_HOLD_AT_START=PATH` it creates
/// `PATH.holding` (so the test knows it got there) and waits until `PATH` exists.
struct StartupHold {
    let release: String

    /// The hold `DVP_HOLD_AT_START` asks for, if any.
    static func fromEnvironment() -> StartupHold? {
        ProcessInfo.processInfo.environment["DVP_HOLD_AT_START"].map { StartupHold(release: $0) }
    }

    /// Marks the hold and waits for the release file (polling every 10 ms).
    func hold() {
        _ = FileManager.default.createFile(atPath: release + ".holding", contents: nil)
        while !FileManager.default.fileExists(atPath: release) { usleep(10_000) }
    }
}
