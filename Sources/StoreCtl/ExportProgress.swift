import Foundation
import StoreCore

/// Progress lines of an export: at most one every two seconds, and a last one.
final class ExportProgress: @unchecked Sendable {
    /// When the export started, as the manifest's `transactionTime` (RFC 3339 UTC, milliseconds).
    let startedAt: String
    private let started = ContinuousClock.now
    private var lastLine = ContinuousClock.now

    init() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        startedAt = formatter.string(from: Date())
    }

    /// Prints a line when two seconds passed since the last one, or when `final`.
    func report(_ files: NDJSONFileSet, final: Bool) {
        let now = ContinuousClock.now
        guard final || now - lastLine >= .seconds(2) else { return }
        lastLine = now
        let seconds = Double((now - started).components.attoseconds) / 1e18 + Double((now - started).components.seconds)
        let line = String(
            format: "%@ %d resources, %.1f MB in %d files (%.0f resources/s)\n", final ? "exported" : "exporting",
            files.resourceCount, Double(files.byteCount) / 1e6, files.files.count + (final ? 0 : 1),
            seconds > 0 ? Double(files.resourceCount) / seconds : 0)
        FileHandle.standardOutput.write(Data(line.utf8))  // unbuffered: a progress line shows at once
    }
}
