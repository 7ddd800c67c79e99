# write_report of bench/run.sh (sourced): bench/REPORT.md from bench/out/results.txt.
# Standalone: `bash bench/report.sh` rewrites the report from the last run's results.

# ratio A B: A / B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
# verdict OK: "met" or "**NOT met**".
verdict() { if [ "$1" = 1 ]; then echo "met"; else echo "**NOT met**"; fi; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { print (a >= b) ? 1 : 0 }'; }
fmt() { awk -v a="$1" 'BEGIN { if (a >= 10000) printf "%.1fk", a / 1000; else printf "%s", a }'; }

# The worker against the Python peer, run for run (same topics, same cluster, same run).
peer_section() {
    echo "## Against the Python peer (same events, same run)"
    if [ "$(get peer_ran)" != 1 ]; then
        echo "The peer was not run (\`../shared/bench/peer/\` or its Python packages absent): no ratio to it here."
        return
    fi
    cat <<EOT
\`../shared/bench/peer/peer_worker.py\` (confluent-kafka + psycopg2, batches of 500, \`execute_values\` upsert with
the same version guard, database commit before offset commit) on the same topics, a database of its own on the same
PostgreSQL cluster, a new group per run. Steady rates: the worker's from first assignment until every event is
durable, the peer's from its first record to its last commit (neither pays the group join). A peer process that
crashes — it raises on a synchronous commit refused with REBALANCE_IN_PROGRESS, which the mock answers while the
group rebalances after the other process left (a real broker accepts such commits) — is restarted like a
deployment would (at most 3 times); its rate then includes the mock's rebalance wait and its CPU misses the crashed
process's, so that row is "not comparable" and its target not judged. Stored resource size (\`pg_column_size\`):
worker $(get worker_row_bytes_avg) B (its compressed document), peer $(get peer_row_bytes_avg) B (its resource) on
average; whole table with TOAST and indexes after the first load: worker $(get worker_table_row_bytes) B, peer
$(get peer_table_row_bytes) B per row. The peer skipped
$(get peer1_load_bad) events it cannot map (it predates the blood-pressure panel), so it stored $(get peer_rows) rows
to the worker's $(get worker_rows): its rates cover slightly less work.

| Run | Processes | Worker | Peer | Ratio | Worker CPU/event | Peer CPU/event | PostgreSQL CPU/event (worker / peer) |
|---|---|---|---|---|---|---|---|
EOT
    local run procs
    for run in "load first load" "replace higher versions" "replay exact replay"; do
        for procs in 1 2; do
            local kind=${run%% *} what=${run#* }
            local w p
            w=$(get "pg${procs}_${kind}_steady_rate")
            p=$(get "peer${procs}_${kind}_steady_rate")
            local crashed="" shown
            shown="$(ratio "$w" "$p") ×"
            if [ "$(get "peer${procs}_${kind}_restarts")" -gt 0 ] 2>/dev/null; then
                crashed=" (crashed, restarted $(get "peer${procs}_${kind}_restarts")×)"
                shown="not comparable"
            fi
            echo "| $what | $procs | $(fmt "$w")/s | $(fmt "$p")/s$crashed | $shown |" \
                "$(get "pg${procs}_${kind}_cpu_us") µs | $(get "peer${procs}_${kind}_cpu_us") µs |" \
                "$(get "pg${procs}_${kind}_pg_cpu_us") / $(get "peer${procs}_${kind}_pg_cpu_us") µs |"
        done
    done
    peer_ceilings
}

# What each ratio target needs, next to what the database alone did with the same rows in the same run (the raw
# psql limits: no consumer, no mapping): a target above both raw limits cannot be met by any worker on this machine.
peer_ceilings() {
    cat <<EOT

What the ratio targets need, against the database alone in this run (the raw psql limits above: the same rows, no
Kafka, no mapping, and with 2 connections both cores for PostgreSQL):

| Target | Needs | Raw limit, 1 connection | Raw limit, 2 connections | CPU bound of the worker's own costs |
|---|---|---|---|---|
EOT
    local row target kind procs noop p need
    for row in "3.5 load 1 new first load, 1 process each" "3 replace 1 replace higher versions, 1 process each"; do
        read -r target kind procs noop _ <<<"$row"
        p=$(get "peer${procs}_${kind}_steady_rate")
        need=$(calc "$target * $p")
        echo "| ${row#* * * * } ≥ $target × the peer | $(fmt "$need")/s |" \
            "$(fmt "$(get "raw_1c_${noop}_rate")")/s | $(fmt "$(get "raw_2c_${noop}_rate")")/s | $(cpu_bound "pg${procs}_${kind}") |"
    done
    echo "| exact replay, 1 process each ≥ 8 × the peer | $(fmt "$(calc "8 * $(get peer1_replay_steady_rate)")")/s |" \
        "— | — | $(cpu_bound pg1_replay) |"
    echo
    echo "CPU bound = $(nproc) cores ÷ (the worker's + PostgreSQL's CPU per event in that run): the rate at which both"
    echo "would use every core, with nothing left for the broker. An exact replay writes no resources (the worker reads"
    echo "stored versions only): its other bound is consuming, $(fmt "$(get raw_consume_rate)")/s for kcat alone."
}

# cpu_bound LABEL: cores / (worker + PostgreSQL CPU µs per event) of run LABEL, as a rate.
cpu_bound() {
    fmt "$(calc "$(nproc) * 1000000 / ($(get "${1}_cpu_us") + $(get "${1}_pg_cpu_us"))")"
    echo "/s"
}

# The target rows against the peers (issue 39), or rows saying they were not run.
peer_targets() {
    local row target kind procs w p
    if [ "$(get peer_ran)" != 1 ]; then
        echo "| ratios to the Python peer on PostgreSQL | peer not run | **NOT judged** |"
    else
        for row in "3.5 load 1 first load, 1 process each" "3 replace 1 higher versions, 1 process each" \
            "8 replay 1 exact replay, 1 process each"; do
            read -r target kind procs _ <<<"$row"
            w=$(get "pg${procs}_${kind}_steady_rate")
            p=$(get "peer${procs}_${kind}_steady_rate")
            if [ "$(get "peer${procs}_${kind}_restarts")" -gt 0 ] 2>/dev/null; then
                echo "| PostgreSQL ${row#* * * } ≥ $target × the Python peer | peer crashed on the mock's refused commit | **NOT judged** |"
                continue
            fi
            echo "| PostgreSQL ${row#* * * } ≥ $target × the Python peer | $(ratio "$w" "$p") × | $(verdict "$(ge "$w" "$(calc "$target * $p")")") |"
        done
        echo "| two processes each, first load: the ratio (no target; what bounds it: above) | $(ratio "$(get pg2_load_steady_rate)" "$(get peer2_load_steady_rate)") × | reported |"
        echo "| worker CPU per first-load event ≤ 0.4 × the peer's (1 process each, whole process) | $(get pg1_load_cpu_us) / $(get peer1_load_cpu_us) µs = $(ratio "$(get pg1_load_cpu_us)" "$(get peer1_load_cpu_us)") × | $(verdict "$(ge "$(calc "0.4 * $(get peer1_load_cpu_us)" 3)" "$(get pg1_load_cpu_us)")") |"
        echo "| PostgreSQL CPU per first-load event ≤ 0.45 × the peer's (1 process each) | $(get pg1_load_pg_cpu_us) / $(get peer1_load_pg_cpu_us) µs = $(ratio "$(get pg1_load_pg_cpu_us)" "$(get peer1_load_pg_cpu_us)") × | $(verdict "$(ge "$(calc "0.45 * $(get peer1_load_pg_cpu_us)" 3)" "$(get pg1_load_pg_cpu_us)")") |"
    fi
    if [ "$(get sqlite_peer_ran)" != 1 ]; then
        echo "| ratios to the Python peer on SQLite | peer not run | **NOT judged** |"
    else
        for row in "3 load first load" "5 replay exact replay"; do
            read -r target kind _ <<<"$row"
            w=$(get "sqlite_${kind}_steady_rate")
            p=$(get "sqpeer_${kind}_steady_rate")
            echo "| SQLite ${row#* * } ≥ $target × the Python peer on SQLite | $(ratio "$w" "$p") × | $(verdict "$(ge "$w" "$(calc "$target * $p")")") |"
        done
    fi
    echo "| worker CPU ≤ 12 µs/event (1 process, PostgreSQL first load) | $(get pg1_load_cpu_us) µs | $(verdict "$(ge 12 "$(get pg1_load_cpu_us)")") |"
}

# The embedded default against the Python peer on SQLite, run for run (same topics, same run).
sqlite_peer_section() {
    echo "## SQLite against its Python peer (same events, same run)"
    if [ "$(get sqlite_peer_ran)" != 1 ]; then
        echo "The peer was not run (\`../shared/bench/peer/peer_worker_sqlite.py\` or confluent-kafka absent)."
        return
    fi
    cat <<EOT
\`../shared/bench/peer/peer_worker_sqlite.py\`: the consumer, mapping and version guard of peer_worker.py, one
\`executemany\` per batch into its own SQLite file in WAL mode; one process, a new group each run, on the topics the
worker's SQLite runs above read. Steady rates as above (the peer's: first record to last commit). CPU: whole process,
user+sys, per event. Bytes per row: the database file after a truncating checkpoint over its rows, after the first
load — worker $(get sqlite_row_bytes) B, peer $(get sqpeer_row_bytes) B ($(get sqpeer_rows) rows).

| Run | Worker | Peer | Ratio | Worker CPU/event | Peer CPU/event | CPU ratio |
|---|---|---|---|---|---|---|
EOT
    local kind what
    for kind in load replay replace; do
        case $kind in load) what="first load" ;; replay) what="exact replay (new group)" ;; *) what="higher versions" ;; esac
        echo "| $what | $(fmt "$(get "sqlite_${kind}_steady_rate")")/s | $(fmt "$(get "sqpeer_${kind}_steady_rate")")/s |" \
            "$(ratio "$(get "sqlite_${kind}_steady_rate")" "$(get "sqpeer_${kind}_steady_rate")") × |" \
            "$(get "sqlite_${kind}_cpu_us") µs | $(get "sqpeer_${kind}_cpu_us") µs |" \
            "$(ratio "$(get "sqlite_${kind}_cpu_us")" "$(get "sqpeer_${kind}_cpu_us")") × |"
    done
}

# generated_by FILE: "COMMAND|DATE" of a report's first "Generated by `COMMAND` on DATE UTC" line, empty if none.
generated_by() {
    sed -n 's/^Generated by `\([^`]*\)` on \([0-9-]* [0-9:]* UTC\).*/\1|\2/p' "$1" | head -n 1
}

# The FHIR store's figures from bench/REPORT-fhir.md (written by bench/fhir.sh, a run of its own): its rates and
# ratios table, its date and command, or a line saying it was not run.
fhir_section() {
    local source=$ROOT/bench/REPORT-fhir.md generated command date table
    echo "## FHIR store (bench/fhir.sh)"
    if [ ! -f "$source" ]; then
        echo "Not run: there is no \`bench/REPORT-fhir.md\`. \`bench/fhir.sh\` measures the FHIR store into sekmet-fhir"
        echo "next to that server's raw write rates; \`bash bench/report.sh\` then carries its figures here."
        return
    fi
    generated=$(generated_by "$source")
    command=${generated%%|*}
    date=${generated#*|}
    # Its sections (tables, notes and the target's verdict), one heading level down.
    table=$(sed -n '/^## /,$p' "$source" | sed 's/^## /### /')
    if [ -z "$generated" ] || [ -z "$table" ]; then
        echo "\`bench/REPORT-fhir.md\` is there but has no \"Generated by\" line or no table of rates: rerun \`bench/fhir.sh\`."
        return
    fi
    cat <<EOT
From [\`REPORT-fhir.md\`](REPORT-fhir.md), generated on $date by a run of its own (not the run above) into
sekmet-fhir: every ratio compares with a rate of that same run.

$table

Rerun: \`$command\` (rewrites \`bench/REPORT-fhir.md\`),
then \`bash bench/report.sh\`.
EOT
}

# The PostgreSQL variants from bench/REPORT-postgres.md (written by bench/pg-variants.sh, a run of its own): backend
# CPU per row of the worker's statement and of each alternative, its date and command, or a line saying it was not
# run.
postgres_section() {
    local source=$ROOT/bench/REPORT-postgres.md generated table
    echo "## PostgreSQL per-row cost (bench/pg-variants.sh)"
    if [ ! -f "$source" ]; then
        echo "Not run: there is no \`bench/REPORT-postgres.md\`. \`bench/pg-variants.sh\` measures the backend CPU per row"
        echo "of the worker's statement and of its alternatives; \`bash bench/report.sh\` then carries its figures here."
        return
    fi
    generated=$(generated_by "$source")
    [ -z "$generated" ] || generated="\`${generated%%|*}\` on ${generated#*|}"
    # The first table's variant, backend CPU and Δ columns.
    table=$(awk -F'|' '/^\|/ { found = 1; printf "|%s|%s|%s|%s|%s|\n", $2, $4, $5, $6, $7; next } found { exit }' \
        "$source")
    if [ -z "$generated" ] || [ -z "$table" ]; then
        echo "\`bench/REPORT-postgres.md\` has no \"Generated by\" line or no table: rerun \`bench/pg-variants.sh\`."
        return
    fi
    cat <<EOT
From [\`REPORT-postgres.md\`](REPORT-postgres.md), a run of its own ($generated): the PostgreSQL
backend's CPU per row of the worker's own statement ("today", its exact text and binding) and of each
alternative, on the same rows, with the profile (perf, pg_stat_statements, EXPLAIN) and why none was adopted.

$table
EOT
}

# raw_cpu KIND: ", CPU N µs/row" of the raw SQLite run KIND (the sqlite3 process), when measured.
raw_cpu() { local c; c=$(get "raw_sqlite_$1_cpu_us"); if [ -n "$c" ]; then echo ", sqlite3 CPU $c µs/row"; fi; }

# worker_row LABEL WHAT RAW PROCS: one row of the end-to-end table; "× raw" is "—" without a RAW limit.
worker_row() {
    local label=$1 what=$2 raw=$3 procs=$4 times="—"
    [ -n "$raw" ] && times=$(ratio "$(get "${label}_steady_rate")" "$raw")
    echo "| $what | $procs | $(fmt "$(get "${label}_steady_rate")")/s | $times |" \
        "$(fmt "$(get "${label}_rate")")/s | $(get "${label}_seconds") s |" \
        "$(get "${label}_cpu_us") µs | $(get "${label}_pg_cpu_us") µs | $(get "${label}_rss_mb") MB |" \
        "$(get "${label}_inserted")/$(get "${label}_updated")/$(get "${label}_unchanged")/$(get "${label}_stale") |"
}

write_report() {
    local raw1 raw2 raw1noop raw1rep raw2noop raw2rep max_rss cpu_model mem
    raw1=$(get raw_1c_new_rate)
    raw2=$(get raw_2c_new_rate)
    raw1noop=$(get raw_1c_noop_rate)
    raw1rep=$(get raw_1c_replace_rate)
    raw2noop=$(get raw_2c_noop_rate)
    raw2rep=$(get raw_2c_replace_rate)
    local rawsq rawsqrep sq
    rawsq=$(get raw_sqlite_new_rate)
    rawsqrep=$(get raw_sqlite_replace_rate)
    sq=$(get sqlite_load_steady_rate)
    max_rss=0
    for label in sqlite_load sqlite_replay sqlite_replace pg1_load pg1_replay pg1_replace pg2_load pg2_replay \
        pg2_replace; do
        max_rss=$(awk -v a="$max_rss" -v b="$(get "${label}_rss_mb")" 'BEGIN { print (b > a) ? b : a }')
    done
    cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
    mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
    local pg1=$(get pg1_load_steady_rate) pg2=$(get pg2_load_steady_rate) replay=$(get pg1_replay_steady_rate)
    local p99=$(get latency_p99_ms)
    cat >"$REPORT" <<EOF
# Benchmark report

Generated by \`bench/run.sh --events $EVENTS\` on $(date -u -r "$RESULTS" '+%Y-%m-%d %H:%M UTC') (the run's last figure). Every ratio compares with a raw
limit measured **in the same run** on the same machine, so it stays meaningful on a slower or busier box.

## Machine
- \`nproc\`: $(nproc); CPU: $cpu_model; memory: $mem
- load average at start (1/5/15 min): $(get load_at_start | tr '/' ' ') — the machine is shared with other
  builds; figures from a busy run are lower than on an idle one
- $(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release), kernel $(uname -r)
- $(swift --version 2>/dev/null | head -n 1)
- librdkafka $(dpkg-query -W -f '${Version}' librdkafka1 2>/dev/null) (mock cluster, 3 brokers, $PARTITIONS partitions per topic,
  lz4 from the producer); $(kcat -V 2>/dev/null | head -n 1 | cut -c1-40)
- $("$PG_BIN_DIR"/postgres --version 2>/dev/null || echo PostgreSQL 15) on 127.0.0.1, fsync and synchronous_commit on,
  shared_buffers 1GB, max_wal_size 8GB, autovacuum off (no background work in the middle of a timing)

## Data set
$EVENTS DailyValue events from \`producer generate\` ($(get metrics_in_set) metrics in the realistic daily-probability mix of
the built-in profiles, $DAYS days, ~$(get event_bytes_avg) bytes per event), published once with \`producer publish\`
($(fmt "$(get publish_rate)")/s) and counted back with kcat before any timing. A second set has every identity one
hour later (a higher version). Stored rows average ~$(get row_bytes_avg) bytes (CSV of the worker's own SQLite output).

## Raw limits (same run)
| Limit | Rate |
|---|---|
| consume only: kcat, every partition, from the beginning to the end | $(fmt "$(get raw_consume_rate)")/s |
| PostgreSQL upsert, 1 connection, new rows | $(fmt "$raw1")/s |
| PostgreSQL upsert, 1 connection, same version (no-ops) | $(fmt "$raw1noop")/s |
| PostgreSQL upsert, 1 connection, higher version (replaces) | $(fmt "$raw1rep")/s |
| PostgreSQL upsert, 2 connections, new rows | $(fmt "$raw2")/s |
| PostgreSQL upsert, 2 connections, same version | $(fmt "$raw2noop")/s |
| PostgreSQL upsert, 2 connections, higher version | $(fmt "$raw2rep")/s |
| SQLite upsert, new rows | $(fmt "$rawsq")/s$(raw_cpu new) |
| SQLite upsert, higher version (replaces) | $([ -n "$rawsqrep" ] && echo "$(fmt "$rawsqrep")/s$(raw_cpu replace)" || echo "not measured") |

Raw upserts: \`psql\`, per batch of 1000 rows \`BEGIN; COPY\` into a temp table; one
\`INSERT … SELECT … ON CONFLICT (patient, metric, day) DO UPDATE … WHERE o.version < EXCLUDED.version; COMMIT\`
into the worker's own schema-4 table (\`storectl\` creates it: the primary key and the partial preliminary index),
the rows exactly as the worker's first load stored them (compressed documents, facts, digests; docs/STORAGE.md).
Two connections split the rows by patient.

## Row shape: schema 4 against schema 3 (same rows, same run)
The same 1 connection raw load (new rows) into the previous build's row shape — the whole resource as lz4 \`jsonb\`,
the primary key and the \`resource_id\` index, the resources as the SQLite store keeps them — and into schema 4.
Bytes per row: heap + TOAST + indexes after the first load (\`pg_total_relation_size\`).

| Row shape | New rows/s | PostgreSQL CPU/row | Bytes/row |
|---|---|---|---|
| schema 3: resource \`jsonb\` + 2 indexes | $(fmt "$(get raw3_new_rate)")/s | $(get raw3_new_pg_cpu_us) µs | $(get schema3_row_bytes) |
| schema 4: facts + compressed document + primary key (+ partial index) | $(fmt "$raw1")/s | $(get raw_1c_new_pg_cpu_us) µs | $(get raw_row_bytes) |
| the worker's own store after its first load (schema 4) | $(fmt "$(get pg1_load_steady_rate)")/s | $(get pg1_load_pg_cpu_us) µs | $(get worker_table_row_bytes) |

The worker's documents average $(get worker_document_bytes_avg) bytes; its primary key holds
$(get worker_pkey_bytes) bytes, the partial index \`observation_preliminary\` $(get worker_preliminary_index_bytes) bytes
(only the days still preliminary). Stored bytes per row ≤ 0.5 × schema 3:
$(ratio "$(get worker_table_row_bytes)" "$(get schema3_row_bytes)") × — $(verdict "$(ge "$(calc "0.5 * $(get schema3_row_bytes)" 1)" "$(get worker_table_row_bytes)")").

Raw SQLite upserts: the \`sqlite3\` shell on the worker's own schema (\`storectl\` creates it: the same unique key and
indexes) with its pragmas (WAL, \`synchronous=FULL\`, \`wal_autocheckpoint = 8000\`), the worker's first-load rows
(every column it writes) copied untimed into an attached file in the order the worker received them, then per 1000
rows \`BEGIN IMMEDIATE\`; one \`INSERT … SELECT … ON CONFLICT (patient, metric, day) DO UPDATE … WHERE version <
excluded.version\`; \`COMMIT\` — new rows into an empty store, then every row one version higher.

## Worker end to end
Consume → decode/validate → map to FHIR → version-guarded durable upsert → stored offsets, \`--until-caught-up\`,
a new consumer group each run. Steady rate = events / (the time every event is durable, i.e. the latest of each
process's first "caught up", − the first partition assignment), which leaves out the mock cluster's ~3 s
group-join delay and process start that a long-running worker pays once; wall rate = events / wall time of the
whole run. With 2 processes the one done first leaves the group and the mock refuses the other's commit while it
rebalances (~5 s; a real broker accepts commits then), so that one re-reads its partitions from the last commit
before exiting: the wall time, CPU and "unchanged" outcomes include that, the steady rate does not. "× raw" uses
the steady rate. CPU = user+sys of the worker process(es) per event. Outcomes = inserted/updated/unchanged/stale.

| Run | Processes | Steady rate | × raw | Wall rate | Wall | CPU/event | PostgreSQL CPU/event | Peak RSS | Outcomes |
|---|---|---|---|---|---|---|---|---|---|
$(worker_row pg1_load "PostgreSQL first load" "$raw1" 1)
$(worker_row pg1_replay "PostgreSQL exact replay (new group)" "$raw1noop" 1)
$(worker_row pg1_replace "PostgreSQL higher versions" "$raw1rep" 1)
$(worker_row pg2_load "PostgreSQL first load" "$raw2" 2)
$(worker_row pg2_replay "PostgreSQL exact replay" "$raw2noop" 2)
$(worker_row pg2_replace "PostgreSQL higher versions" "$raw2rep" 2)
$(worker_row sqlite_load "SQLite first load" "$rawsq" 1)
$(worker_row sqlite_replay "SQLite exact replay" "" 1)
$(worker_row sqlite_replace "SQLite higher versions" "$rawsqrep" 1)

"× raw" compares with the raw limit of the same store, kind and connection count (SQLite: its own raw limits; no
raw SQLite same-version limit is measured, so its replay has none).

### Store connections
One process, first load, into an empty database each: \`--store-connections N\` writes each batch's lanes (records
split by patient) on N connections at once. The runs above use the default, 2.

| --store-connections | Steady rate | CPU/event | PostgreSQL CPU/event | Peak RSS |
|---|---|---|---|---|
| 1 | $(fmt "$(get pg1c1_load_steady_rate)")/s | $(get pg1c1_load_cpu_us) µs | $(get pg1c1_load_pg_cpu_us) µs | $(get pg1c1_load_rss_mb) MB |
| 2 (default) | $(fmt "$(get pg1_load_steady_rate)")/s | $(get pg1_load_cpu_us) µs | $(get pg1_load_pg_cpu_us) µs | $(get pg1_load_rss_mb) MB |
| 4 | $(fmt "$(get pg1c4_load_steady_rate)")/s | $(get pg1c4_load_cpu_us) µs | $(get pg1c4_load_pg_cpu_us) µs | $(get pg1c4_load_rss_mb) MB |

$(peer_section)

$(sqlite_peer_section)

$(fhir_section)

$(postgres_section)

## Produce-to-durable delay at half the peak rate
\`producer generate --rate $(get latency_target_rate)\` (half the one-worker PostgreSQL first-load rate) to an
empty topic while one worker runs; $(get latency_events) events (achieved $(fmt "$(get latency_achieved_rate)")/s).
Per row: \`last_updated\` (the upsert transaction's start, \`now()\`) minus its Kafka record's timestamp (set when the
producer produced it; the mapper's \`issued\`), read back from the topic with kcat and joined by identity.

| p50 | p99 | max |
|---|---|---|
| $(get latency_p50_ms) ms | $p99 ms | $(get latency_max_ms) ms |

## Targets
Judged on the steady rates (see above).

| Target | Measured | Verdict |
|---|---|---|
| 1 worker first load ≥ 0.9 × raw 1-connection limit | $(ratio "$pg1" "$raw1") × | $(verdict "$(ge "$pg1" "$(calc "0.9 * $raw1")")") |
$(peer_targets)
| 2 workers first load ≥ 0.9 × raw 2-connection limit | $(ratio "$pg2" "$raw2") × | $(verdict "$(ge "$pg2" "$(calc "0.9 * $raw2")")") |
| SQLite first load ≥ 0.9 × raw SQLite limit | $(ratio "$sq" "$rawsq") × | $(verdict "$(ge "$sq" "$(calc "0.9 * $rawsq")")") |
| exact replay ≥ 0.5 × the consume-only limit (kcat) | $(ratio "$replay" "$(get raw_consume_rate)") × | $(verdict "$(ge "$replay" "$(calc "0.5 * $(get raw_consume_rate)")")") |
| stored bytes per row ≤ 0.5 × schema 3 (same rows, same run) | $(ratio "$(get worker_table_row_bytes)" "$(get schema3_row_bytes)") × | $(verdict "$(ge "$(calc "0.5 * $(get schema3_row_bytes)" 1)" "$(get worker_table_row_bytes)")") |
| worker peak RSS < 150 MB | $max_rss MB | $(verdict "$(ge 150 "$max_rss")") |
| p99 produce-to-durable < 1 s at half load | $p99 ms | $(verdict "$(ge 1000 "$p99")") |

$(cat "$ROOT/bench/NOTES.md" 2>/dev/null || true)

## Rerun
\`\`\`
bench/run.sh                   # 1 M events, ~15 minutes on 2 cores
bench/run.sh --events 100000   # quick mode
bash bench/report.sh           # rewrite this report from bench/out/results.txt (and the two REPORT-*.md)
bench/fhir.sh                  # the FHIR store into sekmet-fhir: rewrites bench/REPORT-fhir.md
bench/pg-variants.sh           # PostgreSQL per-row cost of the write path's variants: rewrites bench/REPORT-postgres.md
\`\`\`
Needs the Debian packages of \`scripts/install-deps.sh\` (librdkafka, libpq, PostgreSQL 15, kcat, sqlite3, perl).
Scratch data, logs, per-run worker summaries (\`bench/out/*.out\`) and raw figures (\`bench/out/results.txt\`) stay
in \`bench/out/\`.
EOF
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    ROOT=$(cd "$(dirname "$0")/.." && pwd)
    OUT=$ROOT/bench/out
    RESULTS=$OUT/results.txt
    REPORT=$ROOT/bench/REPORT.md
    get() { awk -v k="$1" '$1 == k { v = $2 } END { print v }' "$RESULTS"; }
    calc() { awk "BEGIN { printf \"%.${2:-0}f\", $1 }"; }
    EVENTS=$(awk '$1 == "events" { print $2 }' "$RESULTS")
    PARTITIONS=$(awk '$1 == "partitions" { print $2 }' "$RESULTS")
    DAYS=30
    PG_BIN_DIR=/usr/lib/postgresql/15/bin
    write_report
fi
