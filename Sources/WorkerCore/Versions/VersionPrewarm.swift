import Synchronization

/// When to pre-warm the ``VersionCache`` with one read of stored versions before a batch's upsert.
///
/// The read (keys and versions only) is far cheaper than a no-op upsert, which ships and parses every resource:
/// it pays off on replays and backfills, where most records are already stored at their version or a newer one.
/// It settles nothing on a first load (no row stored) nor on a load of higher versions (every row stored, every one
/// older: each record is written anyway, and the read cost PostgreSQL 7 µs per event there, measured with
/// bench/profile-worker.sh --statements), so after a probe that settles fewer than half of the records read, the
/// next ``pauseAfterMiss`` batches skip it (such a load pays one cheap read per 17 batches).
final class VersionPrewarm: Sendable {
    static let pauseAfterMiss = 16

    private let skipBatches = Mutex(0)

    /// Whether this batch should read stored versions first.
    func shouldRead() -> Bool {
        skipBatches.withLock { skip in
            guard skip > 0 else { return true }
            skip -= 1
            return false
        }
    }

    /// Records how many of the records whose stored versions were read are settled by them: stored at the
    /// record's version or a newer one (their upsert could be skipped or decided without a write).
    func observe(settled: Int, of requested: Int) {
        guard settled * 2 < requested else { return }
        skipBatches.withLock { $0 = Self.pauseAfterMiss }
    }
}
