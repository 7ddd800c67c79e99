import Foundation
import Synchronization

/// Fault injection for the reliability suite: points where the test worker (`dvp-fault-worker`, never shipped)
/// kills itself with SIGKILL — a kill -9 that lands exactly there — armed by `DVP_CRASH_AT=<point>[:<n>]` (the
/// n-th time the point is reached, default 1). The shipped worker has no such variable.
///
/// Points that an outside observer cannot hit reliably by timing a kill.
public enum CrashPoint: String, Sendable, CaseIterable {
    /// A batch's upsert returned (committed); its offsets are not stored yet.
    case afterUpsertBeforeOffsets = "after-upsert-before-offsets"
    /// Inside the consumer's revoke callback, before the batches in flight are waited for.
    case insideRevoke = "inside-revoke"

    /// The environment variable that arms a point.
    public static let environmentVariable = "DVP_CRASH_AT"

    /// Kills the process with SIGKILL if `DVP_CRASH_AT` arms this point and this is the armed occurrence.
    public func reach() {
        guard let armed = Self.armed, armed.point == self else { return }
        let count = Self.reached.add(1, ordering: .relaxed).newValue
        guard count == armed.occurrence else { return }
        FileHandle.standardError.write(Data("crash point \(rawValue) reached (\(count)): SIGKILL\n".utf8))
        kill(getpid(), SIGKILL)
    }

    /// Whether `DVP_CRASH_AT` arms any point.
    public static var isArmed: Bool { armed != nil }

    private static let reached = Atomic(0)

    private static let armed: (point: CrashPoint, occurrence: Int)? = {
        guard let value = ProcessInfo.processInfo.environment[environmentVariable], !value.isEmpty else { return nil }
        let parts = value.split(separator: ":", maxSplits: 1)
        guard let point = CrashPoint(rawValue: String(parts[0])) else { return nil }
        let occurrence = parts.count > 1 ? Int(parts[1]) ?? 1 : 1
        return (point, max(1, occurrence))
    }()
}
