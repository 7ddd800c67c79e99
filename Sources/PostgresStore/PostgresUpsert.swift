import DailyValueContract
import DocumentCompression
import Essentials
import Hashing
import ObservationMapping
import PostgresClient
import StoreCore

/// The batched, version-guarded upsert on PostgreSQL; runs inside the caller's transaction.
///
/// All winners of a batch go in one statement over arrays (`unnest`), so a batch costs one round trip for its data
/// (plus the tiny BEGIN, counter and COMMIT statements, and a version lookup only when some winners were not written):
/// `INSERT … ON CONFLICT … DO UPDATE … WHERE observation.version < EXCLUDED.version RETURNING …`. The database
/// arbitrates races between workers: a conflicting row is locked and the guard is evaluated against its latest
/// committed version, so the higher version always wins and an equal one rewrites nothing.
///
/// The statement decides `meta.versionId`, `meta.lastUpdated` and the status into columns only: the `document`
/// (``StoredDocument``) holds the rest of the resource, compressed by the worker, and the server never parses it.
/// Each decision is made where the row is locked, so it holds under concurrent writers with no probe of its own: a
/// new row gets versionId 1 (or the one after a deleted row's, kept in the retraction ledger) and the incoming
/// status; a replace, in `DO UPDATE`, gets the locked row's versionId + 1 and the status decided against that row.
/// A row of schema 3 a replace reaches is rewritten in schema 4. A day the ledger retracted at the incoming version
/// or above is not written (a row stored there holds a version at least as high, so the guard refuses it anyway).
///
/// Rows are written, locked and returned in the order the arrays are bound (sorted by identity: every worker
/// locks in the same order, so concurrent batches cannot deadlock).
enum PostgresUpsert {
    static let upsertSQL = """
        INSERT INTO observation AS o (patient, metric, day, version, resource_id, document, version_id, last_updated,
            status, clinical_digest, value, unit, min, max, systolic, diastolic, period_start, period_end)
        SELECT input.patient, input.metric, input.day, input.version, input.resource_id, input.document,
            coalesce(ledger.version_id, 0) + 1, now(), nullif(input.status, ''), input.digest, input.value,
            nullif(input.unit, ''), input.min, input.max, input.systolic, input.diastolic,
            to_timestamp(input.period_start), to_timestamp(input.period_end)
        FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::bytea[], $7::text[],
                $8::bytea[], $9::float8[], $10::text[], $11::float8[], $12::float8[], $13::float8[], $14::float8[],
                $15::bigint[], $16::bigint[])
                AS input (patient, metric, day, version, resource_id, document, status, digest, value, unit, min,
                    max, systolic, diastolic, period_start, period_end)
            LEFT JOIN LATERAL (\(ledgerRow("input"))) AS ledger ON true
        WHERE ledger.version IS NULL OR ledger.version < input.version
        ON CONFLICT (patient, metric, day) DO UPDATE
            SET version = EXCLUDED.version, resource_id = EXCLUDED.resource_id, status = \(replacedStatus),
                document = EXCLUDED.document, resource = NULL, clinical_digest = EXCLUDED.clinical_digest,
                clinical_value = NULL, value = EXCLUDED.value, unit = EXCLUDED.unit, min = EXCLUDED.min,
                max = EXCLUDED.max, systolic = EXCLUDED.systolic, diastolic = EXCLUDED.diastolic,
                period_start = EXCLUDED.period_start, period_end = EXCLUDED.period_end,
                version_id = o.version_id + 1, last_updated = EXCLUDED.last_updated
            WHERE o.version < EXCLUDED.version
        RETURNING o.patient, o.metric, o.day, \(insertedRow)
        """

    /// The retraction ledger's entry for input row `row`'s day: its version and the `version_id` of the row a
    /// delete-mode retraction deleted (NULL if none), which a re-stored day continues from.
    private static func ledgerRow(_ row: String) -> String {
        """
        SELECT r.version, r.version_id FROM retraction AS r \
        WHERE (r.patient, r.metric, r.day) = (\(row).patient, \(row).metric, \(row).day) LIMIT 1
        """
    }

    /// The status a replace stores, decided against the conflicting row `o` (the row locked and current, whoever
    /// wrote it); `EXCLUDED.status` is the incoming status, which is what a new row stores.
    private static let replacedStatus = StoredResourceSQL.decidedStatus(
        storedStatus: "o.status", storedValue: storedDigest("o"), incomingStatus: "EXCLUDED.status",
        incomingValue: "EXCLUDED.clinical_digest")

    /// Whether the returned row was inserted: an insert's `version_id` is 1, or one past the ledger's for a day a
    /// delete-mode retraction emptied; a replace's is one past a stored row's, and a stored row's is at least one past
    /// the ledger's (it was inserted after that retraction), so never either. (`xmax = 0` would say it directly, but a
    /// partitioned table's RETURNING cannot read system columns.) Only a replaced row reaches the ledger probe.
    private static let insertedRow = """
        (o.version_id = 1 OR o.version_id = (SELECT r.version_id + 1 FROM retraction AS r \
        WHERE (r.patient, r.metric, r.day) = (o.patient, o.metric, o.day)))
        """

    /// The stored row of input row `row`'s day, probed through the primary key of the one partition its day
    /// selects. `LIMIT 1` (the key is unique anyway) keeps it a per-row probe: as a plain join the planner, with
    /// stale statistics (a partitioned parent has none of its own), chose to hash every partition whole for each
    /// batch (docs/PARTITIONING.md).
    private static func storedRow(_ row: String) -> String {
        """
        SELECT s.version, s.version_id, s.status, s.clinical_value, s.clinical_digest FROM observation AS s \
        WHERE s.patient = \(row).patient AND s.metric = \(row).metric AND s.day = \(row).day LIMIT 1
        """
    }

    /// The ``ClinicalDigest`` row `row` holds: for a row of schema 3 (its clinical value text set: not migrated yet,
    /// or last written by a pod of an older build during a rolling update) the digest of that text, else its column
    /// (NULL when it has neither: a row older than the lifecycle columns).
    static func storedDigest(_ row: String) -> String {
        """
        CASE WHEN \(row).clinical_value IS NULL THEN \(row).clinical_digest
            ELSE substr(sha256(convert_to(\(row).clinical_value, 'UTF8')), 1, 16) END
        """
    }

    /// SQL for FHIR `meta.lastUpdated` of the `timestamptz` expression `instant`: RFC 3339 UTC with milliseconds, the
    /// same text the store reads back from the `last_updated` column.
    static func lastUpdatedText(_ instant: String) -> String {
        #"to_char(\#(instant) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#
    }

    /// The versions the days hold: a row's, else the retraction ledger's (a day retracted but never stored), with
    /// the row's clinical digest (hex) when a value holds it (not `entered-in-error`; the conflict check: the heap
    /// tuple is read for `version` already). For the winners the upsert did not
    /// write, a new statement in READ COMMITTED sees the latest committed rows, and the upsert still holds their row
    /// locks, so these cannot change before COMMIT.
    static let currentSQL = """
        SELECT k.patient, k.metric, k.day, coalesce(o.version, r.version),
            CASE WHEN o.status IS DISTINCT FROM 'entered-in-error' THEN encode(\(storedDigest("o")), 'hex') END
        FROM unnest($1::text[], $2::text[], $3::text[]) AS k (patient, metric, day)
            LEFT JOIN LATERAL (\(storedRow("k"))) AS o ON true
            LEFT JOIN LATERAL (SELECT r.version FROM retraction AS r \
                WHERE (r.patient, r.metric, r.day) = (k.patient, k.metric, k.day) LIMIT 1) AS r ON true
        WHERE o.version IS NOT NULL OR r.version IS NOT NULL
        """

    static let countSQL = """
        INSERT INTO outcome_count AS c (metric, outcome, shard, count)
        SELECT metric, outcome, $4::smallint, count FROM unnest($1::text[], $2::text[], $3::bigint[])
            AS input (metric, outcome, count)
        ORDER BY metric, outcome
        ON CONFLICT (metric, outcome, shard) DO UPDATE SET count = c.count + EXCLUDED.count
        """

    /// Upserts `batch`: records of days before the retention horizon are `expired` and records of persons the
    /// erasure ledger refuses are `erased` (neither written), the others decided by
    /// ``decide(_:retractionMode:compressor:on:)``; the outcome counters get them all.
    static func run(
        _ batch: [ObservationRecord], counterShard: Int16, retractionMode: RetractionMode,
        compressor: DocumentCompressor, erasure: ErasureGuard, on connection: PostgresConnection
    ) throws -> [UpsertOutcome] {
        let guards = try PostgresRetention.batchGuards(on: connection)
        var preset: [UpsertOutcome?]?
        if let horizon = guards.horizon, batch.contains(where: { $0.identity.day < horizon }) {
            preset = batch.map { $0.identity.day < horizon ? .expired : nil }
        }
        if let refused = try erasure.refusedMask(
            batch, generation: guards.erasureGeneration, load: { try PostgresErasure.refused(on: connection) })
        {
            preset = zip(preset ?? [UpsertOutcome?](repeating: nil, count: batch.count), refused).map {
                $0 ?? ($1 ? .erased : nil)
            }
        }
        let outcomes = try PresetOutcomes.merge(batch, preset: preset) {
            try decide($0, retractionMode: retractionMode, compressor: compressor, on: connection)
        }
        let counts = UpsertPlan.counts(of: batch, outcomes: outcomes)
        _ = try connection.executePrepared(
            "dvp_count", countSQL,
            [
                .textArray(counts.map(\.metric)), .textArray(counts.map(\.outcome.rawValue)),
                .bigintArray(counts.map(\.count)), .text(String(counterShard)),
            ])
        return outcomes
    }

    /// The outcome of each record of `batch` (every day at or after the horizon).
    private static func decide(
        _ batch: [ObservationRecord], retractionMode: RetractionMode, compressor: DocumentCompressor,
        on connection: PostgresConnection
    ) throws -> [UpsertOutcome] {
        guard !batch.isEmpty else { return [] }
        let plan = UpsertPlan(batch)
        var winnerOutcomes: [Int: UpsertOutcome] = [:]
        var heldValues: [Int: [UInt8]] = [:]
        let retractions = plan.winners.filter { batch[$0].retractionReason != nil }
        if !retractions.isEmpty { try PostgresRetraction.lock(on: connection) }
        // The values first (with those beneath a retraction), then the retractions, in this one transaction.
        let valueWinners =
            retractions.isEmpty
            ? plan.winners  // sorted by identity already
            : (plan.winners.filter { batch[$0].retractionReason == nil }
                + retractions.compactMap { plan.valuesBeneath[$0] }).sorted { batch[$0].identity < batch[$1].identity }
        let winners = valueWinners.map { batch[$0] }
        let written =
            try winners.isEmpty
            ? nil
            : connection.executePrepared(
                "dvp_upsert_7", upsertSQL, keyArrays(winners) + parameters(winners, compressor: compressor))
        let writtenOutcomes = written.map { Self.writtenOutcomes($0, winners: winners) }
        var unresolved: [Int] = []
        for (position, index) in valueWinners.enumerated() {
            if let outcome = writtenOutcomes?[position] {
                winnerOutcomes[index] = outcome
            } else {
                unresolved.append(index)
            }
        }
        if !unresolved.isEmpty {
            let current = try currentVersions(unresolved.map { batch[$0] }, on: connection)
            for index in unresolved {
                let record = batch[index]
                guard let stored = current[record.identity], stored.version >= record.version else {
                    throw StoreError(
                        .query, "upsert of resource \(record.resourceID) neither wrote nor found a newer row")
                }
                guard stored.version == record.version else {
                    winnerOutcomes[index] = .stale
                    continue
                }
                heldValues[index] = stored.clinicalDigest
                winnerOutcomes[index] = UpsertPlan.equalVersion(record, held: stored.clinicalDigest?[...])
            }
        }
        if !retractions.isEmpty {
            try PostgresRetraction.run(
                retractions, of: batch, mode: retractionMode, into: &winnerOutcomes, on: connection)
        }
        return plan.outcomes(for: batch, winnerOutcomes: winnerOutcomes, heldValues: heldValues)
    }

    private static func currentVersions(
        _ records: [ObservationRecord], on connection: PostgresConnection
    ) throws -> [ObservationIdentity: HeldVersion] {
        try storedVersions(records.map(\.identity), on: connection)
    }

    /// The version each of `identities` holds, if any, with the clinical value held at it (one statement over the
    /// primary key).
    static func storedVersions(
        _ identities: [ObservationIdentity], on connection: PostgresConnection
    ) throws -> [ObservationIdentity: HeldVersion] {
        let result = try connection.executePrepared(
            "dvp_current_2", currentSQL,
            [
                .textArray(identities.map(\.patient)), .textArray(identities.map(\.metric)),
                .textArray(identities.map(\.day)),
            ])
        var versions: [ObservationIdentity: HeldVersion] = [:]
        versions.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount {
            let identity = ObservationIdentity(
                patient: result.text(row, 0), metric: result.text(row, 1), day: result.text(row, 2))
            versions[identity] = HeldVersion(
                version: try result.integer(row, 3),
                clinicalDigest: result.bytes(row, 4).flatMap { Hex.bytes(String(decoding: $0, as: UTF8.self)) })
        }
        return versions
    }

    /// `patient`, `metric` and `day` arrays, reading each record's identity once.
    private static func keyArrays(_ records: [ObservationRecord]) -> [PostgresParameter] {
        var patients: [String] = [], metrics: [String] = [], days: [String] = []
        patients.reserveCapacity(records.count)
        metrics.reserveCapacity(records.count)
        days.reserveCapacity(records.count)
        for record in records {
            let identity = record.identity
            patients.append(identity.patient)
            metrics.append(identity.metric)
            days.append(identity.day)
        }
        return [.textArray(patients), .textArray(metrics), .textArray(days)]
    }
}
