import Essentials
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Progress lines of an export: at most one every two seconds, and a last one.
final class ExportProgress: @unchecked Sendable {
    /// When the export started, as the manifest's `transactionTime` (RFC 3339 UTC, milliseconds).
    let startedAt: String
    private let started = ContinuousClock.now
    private var lastLine = ContinuousClock.now

    init() {
        startedAt = RFC3339.string(Date())
    }

    /// Prints a line when two seconds passed since the last one, or when `final`.
    func report(_ files: NDJSONFileSet, final: Bool) {
        let now = ContinuousClock.now
        guard final || now - lastLine >= .seconds(2) else { return }
        lastLine = now
        let seconds = Double((now - started).components.attoseconds) / 1e18 + Double((now - started).components.seconds)
        let rate = seconds > 0 ? Double(files.resourceCount) / seconds : 0
        let line =
            "\(final ? "exported" : "exporting") \(files.resourceCount) resources, "
            + "\(FixedFormat.decimals(Double(files.byteCount) / 1e6, 1)) MB in \(files.files.count + (final ? 0 : 1)) files "
            + "(\(FixedFormat.decimals(rate, 0)) resources/s)\n"
        FileDescriptorOutput.write(line, to: STDOUT_FILENO)  // unbuffered: a progress line shows at once
    }
}
