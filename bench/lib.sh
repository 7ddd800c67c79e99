# Functions of bench/run.sh and bench/pg-variants.sh (sourced; uses their variables ROOT, OUT, RESULTS, BIN, EVENTS,
# PARTITIONS, PG_DIR, PG_PORT, PIDS).

log() { echo "[bench $(date +%T)] $*" >&2; }
# Records a measured figure: key value (read back when writing the report).
put() { echo "$1 $2" >>"$RESULTS"; log "$1 = $2"; }
get() { awk -v k="$1" '$1 == k { v = $2 } END { print v }' "$RESULTS"; }
now() { date +%s.%N; }
# calc EXPR [DECIMALS]: floating-point arithmetic.
calc() { awk "BEGIN { printf \"%.${2:-0}f\", $1 }"; }

TOPIC=daily-values
TOPIC2=daily-values-v2
TOPIC_LIVE=daily-values-live
DLQ=daily-values.dlq
DAYS=30

# MARK: - Services

# start_devbroker COUNT TOPIC:PARTITIONS…: the embedded broker (mock cluster) of COUNT brokers in the background,
# its bootstrap file in $OUT/bootstrap; sets BROKERS.
start_devbroker() {
    local count=$1 topic args=()
    shift
    for topic in "$@"; do args+=(--topic "$topic"); done
    rm -f "$OUT/bootstrap"
    "$BIN/devbroker" --brokers "$count" "${args[@]}" --bootstrap-file "$OUT/bootstrap" >"$OUT/devbroker.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 1 100); do [ -s "$OUT/bootstrap" ] && break; sleep 0.1; done
    [ -s "$OUT/bootstrap" ] || { echo "error: devbroker did not start (see $OUT/devbroker.log)" >&2; exit 1; }
    BROKERS=$(head -n 1 "$OUT/bootstrap")   # line 2 is devbroker's marker
}

start_services() {
    start_devbroker 3 "$TOPIC:$PARTITIONS" "$TOPIC2:$PARTITIONS" "$TOPIC_LIVE:$PARTITIONS" "$DLQ:3"
    log "devbroker at $BROKERS ($PARTITIONS partitions per topic)"
}

# The EXIT trap of a bench that keeps its background processes in PIDS and its cluster in PG_DIR: ends them and
# removes OUT (kept with KEEP_OUT=1, to look at the logs).
stop_bench() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -f "$PG_DIR/PG_VERSION" ] && { "$ROOT/scripts/pg-test-cluster.sh" stop "$PG_DIR" >/dev/null 2>&1 || true; }
    [ -n "${KEEP_OUT:-}" ] || rm -rf "$OUT"
}

start_postgres() {
    if [ -f "$PG_DIR/PG_VERSION" ]; then "$ROOT/scripts/pg-test-cluster.sh" stop "$PG_DIR" 2>/dev/null || true; fi
    rm -rf "$PG_DIR"
    PG_URL=$("$ROOT/scripts/pg-test-cluster.sh" start "$PG_DIR" "$PG_PORT")
    # A server sized for the data set (1 M rows are ~1 GB): no checkpoint storms in the middle of a measurement.
    psql -X -q "$PG_URL" -c "ALTER SYSTEM SET shared_buffers = '1GB'" -c "ALTER SYSTEM SET max_wal_size = '8GB'" \
        -c "ALTER SYSTEM SET checkpoint_timeout = '30min'" -c "ALTER SYSTEM SET autovacuum = off"
    "$ROOT/scripts/pg-test-cluster.sh" restart-fast "$PG_DIR"
    for db in ${PG_DATABASES-raw raw3 w1 w2 c1 c4 lat p1 p2}; do psql -X -q "$PG_URL" -c "CREATE DATABASE $db"; done
    log "PostgreSQL at $PG_URL"
}

db_url() { echo "$PG_URL" | sed "s#/postgres?#/$1?#"; }

# CPU seconds (user+sys) the PostgreSQL cluster has used so far: the postmaster and its live children, plus the
# children it has already reaped (the postmaster's cutime/cstime), so backends that ended during a run count too.
pg_cpu_seconds() {
    local pm
    [ -f "$PG_DIR/postmaster.pid" ] || { echo 0; return; }
    # First let every client backend of earlier connections end (at most 10 s), so that both readings see only
    # reaped backends (the postmaster's cutime) and no half-ended ones. One 1 M run read 0.0 µs/event for an exact
    # replay and 0.3 for a replace (a rerun of the same sequence did not; the cause was not found).
    for _ in $(seq 1 100); do
        [ "$(psql -X -A -t "$PG_URL" -c "SELECT count(*) FROM pg_stat_activity
            WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()" 2>/dev/null)" = 0 ] && break
        sleep 0.1
    done
    pm=$(head -n 1 "$PG_DIR/postmaster.pid")
    { cat "/proc/$pm/stat"; for child in $(pgrep -P "$pm"); do cat "/proc/$child/stat" 2>/dev/null || true; done; } |
        awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); t += $12 + $13; if (NR == 1) t += $14 + $15 }
            END { printf "%.2f", t / hz }'
}
sql() { psql -X -q -A -t -v ON_ERROR_STOP=1 "$(db_url "$1")" -c "$2"; }

# MARK: - Data

# make_replace_sets PATIENTS: $OUT/set1.jsonl (PATIENTS x 30 days, every metric profile, seed 11) and set2.jsonl (the
# same identities an hour later: every event a higher version); sets EVENTS.
make_replace_sets() {
    "$BIN/producer" generate --patients "$1" --days 30 --seed 11 --out "$OUT/set1.jsonl" 2>/dev/null
    perl -pe 's/"version":(\d+)/"version":@{[$1 + 3600000]}/' "$OUT/set1.jsonl" >"$OUT/set2.jsonl"
    EVENTS=$(wc -l <"$OUT/set1.jsonl")
}

make_data_sets() {
    local start_day stamp per_patient patients
    start_day=$(date -u -d "-$((DAYS + 1)) days" +%F)
    stamp="$EVENTS $DAYS $start_day v1"
    if [ -f "$OUT/set1.jsonl" ] && [ "$(cat "$OUT/set.stamp" 2>/dev/null)" = "$stamp" ]; then
        log "reusing the data sets in $OUT"
    else
        per_patient=$("$BIN/producer" generate --patients 200 --days "$DAYS" --start-day "$start_day" --seed 11 \
            --out - | wc -l)
        patients=$(calc "int($EVENTS * 200 / $per_patient * 1.05) + 1")
        log "generating $EVENTS events ($patients patients x $DAYS days, every metric profile)"
        "$BIN/producer" generate --patients "$patients" --days "$DAYS" --start-day "$start_day" --seed 11 \
            --out "$OUT/full.jsonl"
        head -n "$EVENTS" "$OUT/full.jsonl" >"$OUT/set1.jsonl"
        rm -f "$OUT/full.jsonl"
        # The same identities recomputed an hour later: every event a higher version.
        perl -pe 's/"version":(\d+)/"version":@{[$1 + 3600000]}/' "$OUT/set1.jsonl" >"$OUT/set2.jsonl"
        echo "$stamp" >"$OUT/set.stamp"
    fi
    [ "$(wc -l <"$OUT/set1.jsonl")" -eq "$EVENTS" ] || { echo "error: set1.jsonl is short" >&2; exit 1; }
    put event_bytes_avg "$(calc "$(wc -c <"$OUT/set1.jsonl") / $EVENTS")"
    put metrics_in_set "$(grep -o '"metric":"[a-z_]*"' "$OUT/set1.jsonl" | sort -u | wc -l)"
}

# Counts the records in a topic with kcat (every partition, from the beginning to the end); prints the count.
kcat_count() { kcat -C -b "$BROKERS" -t "$1" -e -o beginning -q -f '\n' | wc -l; }

publish_and_verify() {
    local t0 t1 n
    t0=$(now)
    "$BIN/producer" publish --brokers-file "$OUT/bootstrap" --topic "$TOPIC" "$OUT/set1.jsonl" 2>"$OUT/publish1.log"
    t1=$(now)
    put publish_rate "$(calc "$EVENTS / ($t1 - $t0)")"
    "$BIN/producer" publish --brokers-file "$OUT/bootstrap" --topic "$TOPIC2" "$OUT/set2.jsonl" 2>"$OUT/publish2.log"
    # The mock silently drops the oldest data of a full partition: check that every event is still there. The
    # timed count is also the raw consume limit (kcat, a plain librdkafka consumer).
    for topic in "$TOPIC" "$TOPIC2"; do
        t0=$(now)
        n=$(kcat_count "$topic")
        t1=$(now)
        if [ "$n" -ne "$EVENTS" ]; then
            echo "error: topic $topic holds $n of $EVENTS events (the mock dropped data: more --partitions)" >&2
            exit 1
        fi
        [ "$topic" = "$TOPIC" ] && put raw_consume_rate "$(calc "$EVENTS / ($t1 - $t0)")"
    done
    log "both topics hold all $EVENTS events"
}

# MARK: - Worker runs

# run_workers LABEL PROCS STORE TOPIC: runs PROCS workers of a new group until caught up; records wall time, rate,
# outcome totals, CPU and the peak RSS of each process.
run_workers() {
    local label=$1 procs=$2 store=$3 topic=$4 t0 t1 i pids=() rss=0 cpu=0 group
    local extra=()
    [ -n "${5:-}" ] && read -r -a extra <<<"$5"   # more worker flags, e.g. "--store-connections 4"
    group="bench-$label-$RANDOM"
    local pg0
    pg0=$(pg_cpu_seconds)
    t0=$(now)
    for i in $(seq 1 "$procs"); do
        /usr/bin/time -f '%e %U %S %M' -o "$OUT/$label.$i.time" \
            "$BIN/worker" --brokers-file "$OUT/bootstrap" --topic "$topic" --dlq-topic "$DLQ" \
            --group "$group" --store "$store" --until-caught-up --http-port 0 \
            --worker-id "bench-$label-$i" --log-level info -X session.timeout.ms=6000 -X heartbeat.interval.ms=1000 \
            "${extra[@]}" >"$OUT/$label.$i.out" 2>"$OUT/$label.$i.log" &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || { echo "error: worker $label.$((i + 1)) failed (see $OUT/$label.$((i + 1)).log)" >&2; exit 1; }
    done
    t1=$(now)
    for i in $(seq 1 "$procs"); do
        read -r _ user sys maxrss <"$OUT/$label.$i.time"
        cpu=$(calc "$cpu + $user + $sys" 2)
        [ "$maxrss" -gt "$rss" ] && rss=$maxrss
    done
    # Steady rate: from the first partition assignment until every event is durable: the latest of each process's
    # FIRST "caught up" (its whole assignment stored; without the mock's ~3 s group join and the process start,
    # which a long-running worker pays once). With 2 processes the one done first leaves the group, and the mock
    # refuses the other's commit while it rebalances (a real broker accepts commits in PreparingRebalance; see
    # shared/reference/kafka-reliability.md), so that one may re-read its partitions from the last commit before
    # it exits: wall time and CPU include that, the steady rate does not.
    local first last
    first=$(grep -h '"partitions assigned"' "$OUT/$label".*.log | sed 's/.*"ts":"\([^"]*\)".*/\1/' | sort | head -n 1)
    last=$(for i in $(seq 1 "$procs"); do
        grep -h '"msg":"caught up' "$OUT/$label.$i.log" | head -n 1 | sed 's/.*"ts":"\([^"]*\)".*/\1/'
    done | sort | tail -n 1)
    if [ -z "$first" ] || [ -z "$last" ]; then
        echo "error: $label: no partition assignment or no caught-up line in its logs" >&2
        exit 1
    fi
    put "${label}_steady_rate" "$(calc "$EVENTS / ($(date -d "$last" +%s.%N) - $(date -d "$first" +%s.%N))")"
    put "${label}_seconds" "$(calc "$t1 - $t0" 2)"
    put "${label}_rate" "$(calc "$EVENTS / ($t1 - $t0)")"
    put "${label}_cpu_us" "$(calc "$cpu * 1e6 / $EVENTS" 1)"
    put "${label}_pg_cpu_us" "$(calc "($(pg_cpu_seconds) - $pg0) * 1e6 / $EVENTS" 1)"
    put "${label}_rss_mb" "$(calc "$rss / 1024" 1)"
    for field in consumed inserted updated unchanged stale dead-lettered; do
        put "${label}_${field}" "$(cat "$OUT/$label".*.out | awk -v f="$field" '$1 == f { s += $2 } END { print s + 0 }')"
    done
}

checkpoint() { sql "$1" "CHECKPOINT" >/dev/null; }

# dump_rows SQLITE CSV: the rows as the worker stored them, each resource read back whole (`storectl export`: the
# lean SQLite row keeps a compressed document), for the raw PostgreSQL limits (in topic-like order: by day).
dump_rows() {
    rm -rf "$OUT/rows-export"
    "$BIN/storectl" export --store "sqlite:$1" --out "$OUT/rows-export" >/dev/null
    sqlite3 -csv "$1" "SELECT patient, metric, day, version, resource_id FROM observation ORDER BY day, patient, metric" |
        /usr/bin/python3 -c 'import csv, glob, json, sys
resources = {}
for name in sorted(glob.glob(sys.argv[1] + "/Observation.*.ndjson")):
    for line in open(name, encoding="utf-8"):
        resources[json.loads(line)["id"]] = line.rstrip("\n")
out = csv.writer(sys.stdout, lineterminator="\n")
for row in csv.reader(sys.stdin):
    out.writerow(row + [resources[row[4]]])' "$OUT/rows-export" >"$2"
}

measure_sqlite() {
    local store=sqlite:$OUT/bench.sqlite
    rm -f "$OUT"/bench.sqlite* "$OUT"/raw-in.sqlite
    log "worker on SQLite"
    run_workers sqlite_load 1 "$store" "$TOPIC"
    sqlite3 "$OUT/bench.sqlite" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
    put sqlite_row_bytes "$(calc "$(stat -c %s "$OUT/bench.sqlite") / $(sqlite3 "$OUT/bench.sqlite" \
        "SELECT count(*) FROM observation")")"
    dump_rows "$OUT/bench.sqlite" "$OUT/rows.csv"
    # And for the raw SQLite limits, every column the worker writes (the lean row: document, digest, facts), in the
    # order the worker received them (its rowids). Sorted by day and patient instead, a batch's keys sit close
    # together in the (patient, metric, day) index, which the stream does not give the worker (one 1 M-row trial:
    # 18.5k/s sorted, 15.6k/s in arrival order).
    sqlite3 "$OUT/raw-in.sqlite" "ATTACH '$OUT/bench.sqlite' AS w" "CREATE TABLE raw_in AS SELECT \
        $RAW_SQLITE_COLUMNS FROM w.observation ORDER BY rowid"
    run_workers sqlite_replay 1 "$store" "$TOPIC"
    run_workers sqlite_replace 1 "$store" "$TOPIC2"
    measure_raw_sqlite
}

# The columns the worker writes in the lean row (migration 8), copied from its first load for the raw limits.
RAW_SQLITE_COLUMNS="patient, metric, day, version, resource_id, resource, status, document, clinical_digest, value, \
unit, min, max, systolic, diastolic, period_start, period_end"

# raw_sqlite_script VPLUS: per 1000 rows of raw_in BEGIN IMMEDIATE; one set-based INSERT … SELECT … ON CONFLICT …
# WHERE version < merge of the rows (versions + VPLUS); COMMIT.
raw_sqlite_script() {
    awk -v n="$EVENTS" -v B=1000 -v src="$OUT/raw-in.sqlite" -v vplus="$1" -v cols="$RAW_SQLITE_COLUMNS" 'BEGIN {
        print "PRAGMA journal_mode = WAL;\nPRAGMA synchronous = FULL;\nPRAGMA wal_autocheckpoint = 8000;"
        print "ATTACH \x27" src "\x27 AS src;"
        split(cols, c, ", *")
        set = ""
        for (i = 5; i in c; i++) set = set (set == "" ? "" : ", ") c[i] " = excluded." c[i]
        for (a = 1; a <= n; a += B)
            printf "BEGIN IMMEDIATE;\nINSERT INTO observation (%s, version_id, last_updated) SELECT %s, 1, " \
                "strftime(\x27%%Y-%%m-%%dT%%H:%%M:%%fZ\x27, \x27now\x27) FROM (SELECT * FROM src.raw_in WHERE " \
                "rowid BETWEEN %d AND %d) WHERE true ON CONFLICT (patient, metric, day) DO UPDATE SET " \
                "version = excluded.version, %s, version_id = version_id + 1, last_updated = excluded.last_updated " \
                "WHERE version < excluded.version;\nCOMMIT;\n", cols, cols, a, a + B - 1, set
    }' | sed "s/SELECT patient, metric, day, version,/SELECT patient, metric, day, version + $1,/"
}

# The raw SQLite limits for the same rows: the worker's schema (storectl creates it) and pragmas (WAL,
# synchronous=FULL, wal_autocheckpoint as SQLiteConnection sets it), the rows copied untimed from the worker's first
# load into a separate file in the order it received them, then timed through
# the sqlite3 shell: new rows into an empty store, then every row again one version higher (replaces).
measure_raw_sqlite() {
    local db=$OUT/raw.sqlite
    rm -f "$db" "$db"-*
    "$BIN/storectl" counts --store "sqlite:$db" >/dev/null
    raw_sqlite_script 0 >"$OUT/raw-sqlite-new.sql"
    raw_sqlite_script 1 >"$OUT/raw-sqlite-replace.sql"
    raw_sqlite_phase new
    [ "$(sqlite3 "$db" "SELECT count(*) FROM observation")" -eq "$EVENTS" ] ||
        { echo "error: raw SQLite load incomplete" >&2; exit 1; }
    raw_sqlite_phase replace
    [ "$(sqlite3 "$db" "SELECT count(*) FROM observation WHERE version_id = 2")" -eq "$EVENTS" ] ||
        { echo "error: raw SQLite replace incomplete" >&2; exit 1; }
}

# raw_sqlite_phase KIND: runs raw-sqlite-KIND.sql; records its rate and the sqlite3 process's CPU per row.
raw_sqlite_phase() {
    local t0 t1 user sys
    t0=$(now)
    /usr/bin/time -f '%U %S' -o "$OUT/raw-sqlite.time" sqlite3 "$OUT/raw.sqlite" <"$OUT/raw-sqlite-$1.sql" >/dev/null
    t1=$(now)
    read -r user sys <"$OUT/raw-sqlite.time"
    put "raw_sqlite_$1_rate" "$(calc "$EVENTS / ($t1 - $t0)")"
    put "raw_sqlite_$1_cpu_us" "$(calc "($user + $sys) * 1e6 / $EVENTS" 1)"
}

# MARK: - Raw PostgreSQL limits

# Writes a psql script: per 1000 rows, BEGIN; COPY into a temp table; one INSERT … ON CONFLICT … WHERE version <
# merge (the worker's statement without its versionId lookup, status decision and outcome bookkeeping); COMMIT. The
# rows are the worker's own schema-4 rows (`dump_pg_rows`: the documents it compressed, its facts and digests).
raw_script() {
    batched_copy "$1" "CREATE TEMP TABLE IF NOT EXISTS raw_in (patient text, metric text, day text, version bigint,
    resource_id text, document bytea, status text, clinical_digest bytea, value float8, unit text,
    min float8, max float8, systolic float8, diastolic float8, period_start timestamptz,
    period_end timestamptz) ON COMMIT DELETE ROWS;" \
        "INSERT INTO observation AS o (patient, metric, day, version, resource_id, document, status, clinical_digest,\
 value, unit, min, max, systolic, diastolic, period_start, period_end, version_id, last_updated)
SELECT patient, metric, day, version + :vplus, resource_id, document, status, clinical_digest, value, unit, min, max,\
 systolic, diastolic, period_start, period_end, 1, now() FROM raw_in ORDER BY patient, metric, day
ON CONFLICT (patient, metric, day) DO UPDATE SET version = EXCLUDED.version, resource_id = EXCLUDED.resource_id,\
 document = EXCLUDED.document, status = EXCLUDED.status, clinical_digest = EXCLUDED.clinical_digest,\
 value = EXCLUDED.value, unit = EXCLUDED.unit, min = EXCLUDED.min, max = EXCLUDED.max,\
 systolic = EXCLUDED.systolic, diastolic = EXCLUDED.diastolic, period_start = EXCLUDED.period_start,\
 period_end = EXCLUDED.period_end, version_id = o.version_id + 1, last_updated = EXCLUDED.last_updated\
 WHERE o.version < EXCLUDED.version;
COMMIT;"
}

# batched_copy CSV TEMP_TABLE_SQL MERGE_SQL: a psql script that creates the temp table, then per 1000 rows of CSV
# runs BEGIN; COPY raw_in FROM STDIN (FORMAT csv); the rows; MERGE_SQL (which commits).
batched_copy() {
    awk -v B=1000 -v temp="$2" -v merge="$3" '
        BEGIN { print temp }
        NR % B == 1 { print "BEGIN;\nCOPY raw_in FROM STDIN (FORMAT csv);" }
        { print }
        NR % B == 0 { print "\\.\n" merge }
        END { if (NR % B != 0) print "\\.\n" merge }
    ' "$1"
}

# dump_pg_rows DB CSV: the worker's schema-4 rows as it stored them, in topic-like order (by day).
dump_pg_rows() {
    psql -X -q -v ON_ERROR_STOP=1 "$(db_url "$1")" -c "COPY (SELECT patient, metric, day, version, resource_id,
        document, status, clinical_digest, value, unit, min, max, systolic, diastolic, period_start, period_end
        FROM observation ORDER BY day, patient, metric) TO STDOUT (FORMAT csv)" >"$2"
}

# bytes_per_row DB TABLE: the table's heap, TOAST and indexes over its rows.
bytes_per_row() {
    sql "$1" "SELECT round($(relation_bytes "$2") / greatest(count(*), 1)::numeric) FROM $2"
}

# relation_bytes NAME: SQL for the bytes of table or index NAME with its partitions (a partitioned parent holds none
# itself; pg_partition_tree lists nothing for a plain table), heap + TOAST + indexes for a table.
relation_bytes() {
    echo "(SELECT coalesce(sum(pg_total_relation_size(relid)), pg_total_relation_size('$1')) FROM pg_partition_tree('$1'))"
}

# The schema-3 shape of the same rows (the whole resource as lz4 jsonb, the primary key and the resource_id index;
# the previous build's schema without its later columns), loaded once the same way: its rate and bytes per row are
# the "before" of schema 4 in this run.
measure_schema_three() {
    log "schema 3 (resource jsonb + two indexes), the same rows, 1 connection"
    sql raw3 "CREATE TABLE observation (patient text NOT NULL, metric text NOT NULL, day text NOT NULL,
        version bigint NOT NULL, resource_id text NOT NULL, resource jsonb NOT NULL, version_id bigint NOT NULL,
        last_updated timestamptz NOT NULL, PRIMARY KEY (patient, metric, day));
        ALTER TABLE observation ALTER COLUMN resource SET COMPRESSION lz4;
        CREATE INDEX observation_resource_id ON observation (resource_id)" >/dev/null
    batched_copy "$OUT/rows.csv" "CREATE TEMP TABLE IF NOT EXISTS raw_in (patient text, metric text, day text,
    version bigint, resource_id text, resource jsonb) ON COMMIT DELETE ROWS;" \
        "INSERT INTO observation AS o (patient, metric, day, version, resource_id, resource, version_id, last_updated)
SELECT patient, metric, day, version, resource_id, resource, 1, now() FROM raw_in ORDER BY patient, metric, day
ON CONFLICT (patient, metric, day) DO UPDATE SET version = EXCLUDED.version, resource_id = EXCLUDED.resource_id,\
 resource = EXCLUDED.resource, version_id = o.version_id + 1, last_updated = EXCLUDED.last_updated\
 WHERE o.version < EXCLUDED.version;
COMMIT;" >"$OUT/raw3.sql"
    checkpoint raw3
    local t0 t1 pg0
    pg0=$(pg_cpu_seconds)
    t0=$(now)
    psql -X -q -v ON_ERROR_STOP=1 -f "$OUT/raw3.sql" "$(db_url raw3)" >/dev/null
    t1=$(now)
    put raw3_new_rate "$(calc "$EVENTS / ($t1 - $t0)")"
    put raw3_new_pg_cpu_us "$(calc "($(pg_cpu_seconds) - $pg0) * 1e6 / $EVENTS" 1)"
    put schema3_row_bytes "$(bytes_per_row raw3 observation)"
}

# raw_phase LABEL VPLUS PROCS: replays the prepared rows through 1 or 2 psql connections (halves split by patient).
raw_phase() {
    local label=$1 vplus=$2 procs=$3 url t0 t1
    url=$(db_url raw)
    checkpoint raw
    t0=$(now)
    if [ "$procs" -eq 1 ]; then
        psql -X -q -v ON_ERROR_STOP=1 -v vplus="$vplus" -f "$OUT/raw-a.sql" -f "$OUT/raw-b.sql" "$url" >/dev/null
    else
        psql -X -q -v ON_ERROR_STOP=1 -v vplus="$vplus" -f "$OUT/raw-a.sql" "$url" >/dev/null &
        local a=$!
        psql -X -q -v ON_ERROR_STOP=1 -v vplus="$vplus" -f "$OUT/raw-b.sql" "$url" >/dev/null
        wait "$a"
    fi
    t1=$(now)
    put "raw_${label}_rate" "$(calc "$EVENTS / ($t1 - $t0)")"
}

measure_raw_postgres() {
    log "raw PostgreSQL limits (psql, COPY into a temp table + merge, batches of 1000, the worker's schema-4 rows)"
    "$BIN/storectl" counts --store "$(db_url raw)" >/dev/null  # the worker's own schema
    awk -F, '{ print > (substr($1, length($1)) % 2 ? "'"$OUT/rows-a.csv"'" : "'"$OUT/rows-b.csv"'") }' "$OUT/pg-rows.csv"
    raw_script "$OUT/rows-a.csv" >"$OUT/raw-a.sql"
    raw_script "$OUT/rows-b.csv" >"$OUT/raw-b.sql"
    put row_bytes_avg "$(calc "$(wc -c <"$OUT/rows.csv") / $EVENTS")"
    local pg0
    pg0=$(pg_cpu_seconds)
    raw_phase 1c_new 0 1
    put raw_1c_new_pg_cpu_us "$(calc "($(pg_cpu_seconds) - $pg0) * 1e6 / $EVENTS" 1)"
    put raw_row_bytes "$(bytes_per_row raw observation)"
    [ "$(sql raw "SELECT count(*) FROM observation")" -eq "$EVENTS" ] || { echo "error: raw load incomplete" >&2; exit 1; }
    raw_phase 1c_noop 0 1
    raw_phase 1c_replace 1 1
    sql raw "TRUNCATE observation" >/dev/null
    raw_phase 2c_new 0 2
    raw_phase 2c_noop 0 2
    raw_phase 2c_replace 1 2
    sql raw "TRUNCATE observation" >/dev/null
}

# MARK: - Worker on PostgreSQL

measure_workers_postgres() {
    log "worker on PostgreSQL, one process"
    checkpoint w1
    run_workers pg1_load 1 "$(db_url w1)" "$TOPIC"
    put worker_table_row_bytes "$(bytes_per_row w1 observation)"
    put worker_document_bytes_avg "$(sql w1 "SELECT round(avg(octet_length(document)), 1) FROM observation")"
    put worker_preliminary_index_bytes "$(sql w1 "SELECT $(relation_bytes observation_preliminary)")"
    put worker_pkey_bytes "$(sql w1 "SELECT $(relation_bytes observation_pkey)")"
    dump_pg_rows w1 "$OUT/pg-rows.csv"
    checkpoint w1
    run_workers pg1_replay 1 "$(db_url w1)" "$TOPIC"
    checkpoint w1
    run_workers pg1_replace 1 "$(db_url w1)" "$TOPIC2"
    log "worker on PostgreSQL, two processes"
    checkpoint w2
    run_workers pg2_load 2 "$(db_url w2)" "$TOPIC"
    checkpoint w2
    run_workers pg2_replay 2 "$(db_url w2)" "$TOPIC"
    checkpoint w2
    run_workers pg2_replace 2 "$(db_url w2)" "$TOPIC2"
    put pg_rows_final "$(sql w2 "SELECT count(*) FROM observation WHERE version_id = 2")"
    # The default of --store-connections (2, the runs above) against 1 and 4, one process, first load.
    log "worker on PostgreSQL, one process, --store-connections 1 and 4"
    checkpoint c1
    run_workers pg1c1_load 1 "$(db_url c1)" "$TOPIC" "--store-connections 1"
    checkpoint c4
    run_workers pg1c4_load 1 "$(db_url c4)" "$TOPIC" "--store-connections 4"
}

# MARK: - Produce-to-durable delay

measure_latency() {
    local rate n per_patient patients port=$((PG_PORT + 3)) worker t0 t1 rows=0 expected
    rate=$(calc "$(get pg1_load_steady_rate) / 2")
    n=$(calc "($rate * 20 < $EVENTS) ? $rate * 20 : $EVENTS")
    per_patient=$("$BIN/producer" generate --patients 200 --days 7 --seed 23 --out - | wc -l)
    patients=$(calc "int($n * 200 / $per_patient) + 1")
    expected=$("$BIN/producer" generate --patients "$patients" --days 7 --seed 23 --out - | wc -l)
    log "produce-to-durable delay: $expected events at $rate/s"
    checkpoint lat
    "$BIN/worker" --brokers-file "$OUT/bootstrap" --topic "$TOPIC_LIVE" --dlq-topic "$DLQ" --group bench-latency \
        --store "$(db_url lat)" --http-port "$port" --log-level warning -X session.timeout.ms=6000 \
        2>"$OUT/latency-worker.log" &
    worker=$!
    for _ in $(seq 1 100); do
        curl -fsS "http://127.0.0.1:$port/metrics" 2>/dev/null | grep -q '^dvp_assigned_partitions [1-9]' && break
        sleep 0.1
    done
    t0=$(now)
    # linger.ms=50: a backend batching its sends. With 5 ms, thousands of tiny record batches per second reach
    # the 2.0.2 mock, which answers a fetch with ONE record batch per partition, so consuming them lags.
    "$BIN/producer" generate --patients "$patients" --days 7 --seed 23 --rate "$rate" -X linger.ms=50 \
        --brokers-file "$OUT/bootstrap" --topic "$TOPIC_LIVE" 2>"$OUT/latency-producer.log"
    t1=$(now)
    for _ in $(seq 1 600); do
        rows=$(sql lat "SELECT count(*) FROM observation")
        [ "$rows" -ge "$expected" ] && break
        sleep 0.1
    done
    kill -TERM "$worker"
    wait "$worker" || true
    [ "$rows" -ge "$expected" ] || { echo "error: latency run stored $rows of $expected" >&2; exit 1; }
    put latency_target_rate "$rate"
    put latency_achieved_rate "$(calc "$expected / ($t1 - $t0)")"
    put latency_events "$expected"
    # The delay of each stored row: its last_updated minus its record's timestamp (the producer's CreateTime, which
    # the mapper writes as `issued`; schema 4 keeps it in the compressed document), joined by identity.
    local q
    kcat -C -b "$BROKERS" -t "$TOPIC_LIVE" -e -o beginning -q -f '%T\t%s\n' >"$OUT/latency-records.tsv"
    psql -X -q -v ON_ERROR_STOP=1 "$(db_url lat)" -c "COPY (SELECT patient, metric, day,
        extract(epoch FROM last_updated) * 1000 FROM observation) TO STDOUT" >"$OUT/latency-rows.tsv"
    q=$(python3 - "$OUT/latency-records.tsv" "$OUT/latency-rows.tsv" <<'PY'
import json, math, sys
sent = {}
for line in open(sys.argv[1]):
    ts, _, payload = line.rstrip("\n").partition("\t")
    e = json.loads(payload)
    sent[(e["patient"], e["metric"], e["day"])] = int(ts)
delays = sorted(float(r[3]) - sent[(r[0], r[1], r[2])] for r in (l.rstrip("\n").split("\t") for l in open(sys.argv[2])))
pick = lambda p: delays[min(len(delays) - 1, max(0, math.ceil(len(delays) * p) - 1))]  # percentile_disc
print(round(pick(0.5)), round(pick(0.99)), round(delays[-1]))
PY
)
    read -r p50 p99 pmax <<<"$q"
    put latency_p50_ms "$p50"
    put latency_p99_ms "$p99"
    put latency_max_ms "$pmax"
}
