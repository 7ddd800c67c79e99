import CKafka
import Dispatch
import Essentials
import Synchronization

extension RDKafkaConsumerContext {
    // MARK: - Rebalance

    /// Waits (on the poll thread, inside the revoke callback) until no batch of `partitions` is in flight or
    /// `deadline` passes. The flag is raised before the state is checked and a completer clears it before
    /// signalling, so a completion between the check and the wait leaves its signal in the semaphore.
    /// - Returns: false when batches were still in flight at the deadline.
    func waitForInFlight(of partitions: [KafkaTopicPartition], until deadline: DispatchTime) -> Bool {
        while true {
            revokeWaiting.store(true, ordering: .sequentiallyConsistent)
            guard state.withLock({ $0.progress.hasInFlight(partitions) }) else {
                revokeWaiting.store(false, ordering: .sequentiallyConsistent)
                return true
            }
            if inFlightChanged.wait(timeout: deadline) == .timedOut {
                revokeWaiting.store(false, ordering: .sequentiallyConsistent)
                return !state.withLock { $0.progress.hasInFlight(partitions) }
            }
        }
    }

    /// Wakes a revoke waiting for batches in flight (a batch completed, was abandoned or released partitions).
    func wakeRevokeWaiter() {
        if revokeWaiting.exchange(false, ordering: .sequentiallyConsistent) { inFlightChanged.signal() }
    }

    /// The at-least-once rebalance sequence (reliability recipe §2.3), cooperative or eager.
    func rebalance(
        _ rk: OpaquePointer, _ err: rd_kafka_resp_err_t,
        _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>
    ) {
        let cooperative = String(cString: rd_kafka_rebalance_protocol(rk)) == "COOPERATIVE"
        let changed = RDKafkaTopicPartitionList.entries(of: partitions).map(\.partition)
        switch err {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            if let startTimestampMs { applyStartTimestamp(startTimestampMs, rk: rk, partitions: partitions) }
            // The new generation exists before the first record of the assignment can be polled.
            let generation = state.withLock { $0.assign(changed) }
            if cooperative {
                if let error = rd_kafka_incremental_assign(rk, partitions) {
                    deliver(.error(KafkaError(consuming: error)))
                }
            } else {
                reportIfError(rd_kafka_assign(rk, partitions), "assign")
            }
            if state.withLock({ $0.fetchPaused || $0.shouldPause }) {
                _ = rd_kafka_pause_partitions(rk, partitions)
            }
            closeState.withLock { $0.didServeAssignment() }
            rebalanceHandler(.assigned(changed, generation: generation))
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            let lost = rd_kafka_assignment_lost(rk) != 0
            if lost {
                // Someone else may own them already: nothing of this generation may be stored from now on.
                _ = state.withLock { $0.endRevoke(changed) }
                rebalanceHandler(.revoked(changed, lost: true))
            } else {
                // Batches in flight finish and store their offsets (bounded wait), then the generation ends.
                _ = state.withLock { $0.beginRevoke(changed) }
                rebalanceHandler(.revoked(changed, lost: false))
                let finished = waitForInFlight(of: changed, until: DispatchTime.now() + .nanoseconds(Int(revokeWait.nanoseconds)))
                _ = state.withLock { $0.endRevoke(changed) }
                if !finished {
                    deliver(.error(.timedOut(
                        "revoke: batches in flight of \(changed.count) partition(s) did not finish within "
                            + "\(revokeWait); their offsets are not committed (the next owner re-reads them)")))
                }
            }
            if !lost {
                let commit = rd_kafka_commit(rk, nil, 0)
                if commit != RD_KAFKA_RESP_ERR__NO_OFFSET { reportIfError(commit, "commit on revoke") }
            }
            if cooperative {
                if let error = rd_kafka_incremental_unassign(rk, partitions) {
                    deliver(.error(KafkaError(consuming: error)))
                }
            } else {
                reportIfError(rd_kafka_assign(rk, nil), "unassign")
            }
        default:
            // "must call rd_kafka_assign(rk, NULL) to synchronize state" (rdkafka.h): everything is unassigned.
            reportIfError(err, "rebalance")
            let all = state.withLock { state in
                let all = state.assignedPartitions
                state.endRevoke(all)
                return all
            }
            if !all.isEmpty { rebalanceHandler(.revoked(all, lost: true)) }
            _ = rd_kafka_assign(rk, nil)
        }
    }

    /// Sets the start offset of each newly assigned partition without a committed offset to the first record at or
    /// after `timestampMs` (blocking lookups, bounded, on the poll thread during the assign callback).
    func applyStartTimestamp(
        _ timestampMs: Int64, rk: OpaquePointer, partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>
    ) {
        guard partitions.pointee.cnt > 0, let committed = rd_kafka_topic_partition_list_copy(partitions) else { return }
        defer { rd_kafka_topic_partition_list_destroy(committed) }
        let committedErr = rd_kafka_committed(rk, committed, 10_000)
        guard committedErr == RD_KAFKA_RESP_ERR_NO_ERROR else {
            reportIfError(committedErr, "start timestamp: committed offsets")
            return
        }
        let query = rd_kafka_topic_partition_list_new(committed.pointee.cnt)!
        defer { rd_kafka_topic_partition_list_destroy(query) }
        for i in 0..<Int(committed.pointee.cnt) where committed.pointee.elems[i].offset < 0 {
            let entry = committed.pointee.elems[i]
            rd_kafka_topic_partition_list_add(query, entry.topic, entry.partition).pointee.offset = timestampMs
        }
        guard query.pointee.cnt > 0 else { return }
        let lookupErr = rd_kafka_offsets_for_times(rk, query, 10_000)
        guard lookupErr == RD_KAFKA_RESP_ERR_NO_ERROR else {
            reportIfError(lookupErr, "start timestamp: offsets for times")
            return
        }
        var unresolved = 0
        for i in 0..<Int(query.pointee.cnt) {
            let answer = query.pointee.elems[i]
            guard answer.err == RD_KAFKA_RESP_ERR_NO_ERROR, answer.offset >= 0,
                let target = rd_kafka_topic_partition_list_find(partitions, answer.topic, answer.partition)
            else {
                unresolved += 1
                continue
            }
            target.pointee.offset = answer.offset
        }
        if unresolved > 0 {
            deliver(.error(KafkaError(
                RD_KAFKA_RESP_ERR__NO_OFFSET,
                "start timestamp: no offset at or after \(timestampMs) for \(unresolved) partition(s) (no such record, "
                    + "or the broker cannot look offsets up by time, like the mock cluster); they start per "
                    + "auto.offset.reset")))
        }
    }

    func reportIfError(_ err: rd_kafka_resp_err_t, _ operation: String) {
        guard err != RD_KAFKA_RESP_ERR_NO_ERROR else { return }
        deliver(.error(KafkaError(err, "\(operation): \(String(cString: rd_kafka_err2str(err)))")))
    }
}
