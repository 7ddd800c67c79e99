import Observability
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The erasure ledger as the gateway checks requests against it (`--erasure-store`): read once before the gateway
/// serves, then re-read in the background every `--erasure-refresh` (one small read of the ledger's generation; the
/// refused set only when it changed), so a request is checked from memory and never waits for the store.
///
/// When a re-read fails the last ledger read stays in use (an erasure made meanwhile reaches the gateway once the
/// store answers again; the workers refuse the person's events either way), and the failure is logged and counted.
final class IngestErasureLedger: Sendable {
    private let reader: ErasureLedgerReader
    private let refreshInterval: Duration
    private let metrics: Metrics
    private let logger: Logger

    init(reader: ErasureLedgerReader, refreshInterval: Duration, metrics: Metrics, logger: Logger) {
        self.reader = reader
        self.refreshInterval = refreshInterval
        self.metrics = metrics
        self.logger = logger
    }

    /// For each of `patients`, whether the ledger refuses the person; nil when none is.
    /// - Throws: ``IngestProblem`` 503 when the ledger cannot be checked (never a guess that lets a person through).
    func refusedMask(_ patients: [String]) throws(IngestProblem) -> [Bool]? {
        do {
            return try reader.refusedMask(patients)
        } catch {
            throw .unavailable("the erasure ledger cannot be checked now; retry later")
        }
    }

    /// Reads the ledger; true when it was read (its outcome counted, its size and time exported).
    @discardableResult
    func refresh() async -> Bool {
        do {
            let refused = try await reader.refresh()
            metrics.increment(.ingestErasureLedgerReads, label: "read")
            metrics.set(.ingestErasureRefusedPersons, Double(refused))
            metrics.set(.ingestErasureLedgerReadTime, Date().timeIntervalSince1970)
            return true
        } catch {
            metrics.increment(.ingestErasureLedgerReads, label: "failed")
            logger.warning(
                "the erasure ledger cannot be read; the last one read stays in use",
                [("error", .string("\(error)"))])
            return false
        }
    }

    /// Re-reads the ledger every refresh interval until cancelled.
    func run() async {
        while (try? await Task.sleep(for: refreshInterval)) != nil {
            await refresh()
        }
    }

    /// Closes the store.
    func close() async { await reader.close() }
}
