import DailyValueContract
import Foundation
import Synchronization

/// Fault injection for the reliability suite: points where a process kills itself with SIGKILL (a kill -9 that
/// lands exactly there), armed by the environment variable `DVP_CRASH_AT=<point>[:<n>]` (the n-th time the point is
/// reached, default 1). Unset, every check is one atomic load.
///
/// Points that an outside observer cannot hit reliably by timing a kill: between the upsert statement and the
/// COMMIT of its transaction, and inside the consumer's revoke callback.
public enum CrashPoint: String, Sendable, CaseIterable {
    /// The batch's upsert ran inside its transaction; COMMIT has not been sent.
    case afterUpsertBeforeCommit = "after-upsert-before-commit"
    /// Inside the rebalance callback for a (non-lost) revoke, before the in-flight batch is waited for.
    case insideRevoke = "inside-revoke"

    /// Kills the process with SIGKILL if `DVP_CRASH_AT` arms this point and this is the armed occurrence.
    public static func reach(_ point: CrashPoint) {
        guard let armed = Self.armed, armed.point == point else { return }
        let count = Self.reached.add(1, ordering: .relaxed).newValue
        guard count == armed.occurrence else { return }
        FileHandle.standardError.write(Data("crash point \(point.rawValue) reached (\(count)): SIGKILL\n".utf8))
        kill(getpid(), SIGKILL)
    }

    private static let reached = Atomic(0)

    private static let armed: (point: CrashPoint, occurrence: Int)? = {
        guard let value = ProcessInfo.processInfo.environment["DVP_CRASH_AT"], !value.isEmpty else { return nil }
        let parts = value.split(separator: ":", maxSplits: 1)
        guard let point = CrashPoint(rawValue: String(parts[0])) else { return nil }
        let occurrence = parts.count > 1 ? Int(parts[1]) ?? 1 : 1
        return (point, max(1, occurrence))
    }()
}
