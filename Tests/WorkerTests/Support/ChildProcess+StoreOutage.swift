import TestSupport

extension ChildProcess {
    /// Whether a worker's log says it met a store outage and retried: in an upsert, or before one, reading the
    /// erasure ledger for a batch's dead letters (either is the store failing, retried the same way).
    var metStoreOutage: Bool {
        let log = stderr
        return log.contains("store upsert failed") || log.contains("erasure ledger read failed")
    }
}
