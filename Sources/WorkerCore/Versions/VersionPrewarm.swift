import Synchronization

/// When to pre-warm the ``VersionCache`` with one read of stored versions before a batch's upsert.
///
/// The read (keys and versions only) is far cheaper than a no-op upsert, which ships and parses every resource:
/// it pays off on replays and backfills, where most records are already stored. On a first load it finds
/// nothing, so after a probe that finds fewer than half of the batch stored, the next ``pauseAfterMiss`` batches
/// skip it (a first load pays one cheap read per 17 batches).
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

    /// Records how many of the identities read had a stored row.
    func observe(found: Int, of requested: Int) {
        guard found * 2 < requested else { return }
        skipBatches.withLock { $0 = Self.pauseAfterMiss }
    }
}
