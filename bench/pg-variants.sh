#!/usr/bin/env bash
# PostgreSQL's per-row cost of the worker's write path and of its alternatives, on the same rows, in one run.
#
#   bench/pg-variants.sh [--rows N] [--csv FILE] [--rounds R] [--variants A,B] [--pg-port PORT] [--no-build]
#
#   --rows N        rows per load (default 100000)
#   --csv FILE      the rows as the worker stores them (bench/run.sh's bench/out/rows.csv: patient, metric, day,
#                   version, resource_id, resource); default: `producer generate` → devbroker → the worker on SQLite
#   --rounds R      rounds over all variants, alternating their order (default 2)
#   --variants A,B  only these variants (and "today", the baseline); default all
#   --pg-port PORT  port of the throwaway PostgreSQL (default 55481)
#   --no-build      use the existing release build
#
# Each variant gets a fresh database with the worker's schema (`storectl`), then one client connection
# (bench/pgvar.c, libpq) loads the rows in batches of 1000 (first load), and again with every version higher
# (replace). Per variant: its backend's CPU per row (user+sys from /proc/PID/stat: robust on a shared machine),
# the wall rate, WAL per row and the stored size. The worker's statements are captured from the server log of a
# real store run (`dvp-test-tools upsert-bench`), so the "today" variant runs the exact text the worker sends, bound
# the same way (ten binary arrays). Then perf, pg_stat_statements and EXPLAIN (ANALYZE, BUFFERS) of today's
# statement. Writes bench/REPORT-postgres.md; scratch in bench/out/pgvar/ (gitignored).
set -euo pipefail

COMMAND="bench/pg-variants.sh${*:+ $*}"
ROWS=100000
CSV=""
ROUNDS=2
ONLY=""
PG_PORT=55481
BUILD=1
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --rows) ROWS=${2:?}; shift 2 ;;
        --csv) CSV=$(realpath "${2:?}"); shift 2 ;;
        --rounds) ROUNDS=${2:?}; shift 2 ;;
        --variants) ONLY=${2:?}; shift 2 ;;
        --pg-port) PG_PORT=${2:?}; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) usage ;;
        *) echo "error: unknown option '$1'" >&2; usage ;;
    esac
done
[[ "$ROWS" =~ ^[0-9]+$ && "$ROWS" -ge 1000 ]] || { echo "error: --rows must be a number >= 1000" >&2; exit 2; }
[[ "$ROUNDS" =~ ^[0-9]+$ && "$ROUNDS" -ge 1 ]] || { echo "error: --rounds must be a number >= 1" >&2; exit 2; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out/pgvar
REPORT=$ROOT/bench/REPORT-postgres.md
mkdir -p "$OUT"
chmod 755 "$ROOT/bench/out" "$OUT"
RESULTS=$OUT/results.txt
: >"$RESULTS"
EVENTS=$ROWS
PARTITIONS=8
PG_DIR=$OUT/pg
PG_BIN_DIR=/usr/lib/postgresql/15/bin
PG_DATABASES=""
PIDS=()
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
# shellcheck source=bench/report.sh
source "$ROOT/bench/report.sh"   # fmt
# shellcheck source=bench/report-postgres.sh
source "$ROOT/bench/report-postgres.sh"
put load_at_start "$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')"
put rounds "$ROUNDS"

cd "$ROOT"
if [ "$BUILD" -eq 1 ]; then
    for product in dvp-test-tools worker producer devbroker storectl; do
        swift build -c release --product "$product" 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' >&2 || true
    done
fi
BIN=$(swift build -c release --show-bin-path)
for tool in dvp-test-tools worker producer devbroker storectl; do
    [ -x "$BIN/$tool" ] || { echo "error: $BIN/$tool missing; run without --no-build" >&2; exit 1; }
done
cc -O2 -Wall -o "$OUT/pgvar" "$ROOT/bench/pgvar.c" -I"$(pg_config --includedir)" -lpq

cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [ -f "$PG_DIR/PG_VERSION" ]; then "$ROOT/scripts/pg-test-cluster.sh" stop "$PG_DIR" 2>/dev/null || true; fi
}
trap cleanup EXIT

# MARK: - Server

PG_DATABASES="capture" start_postgres
psql -X -q -v ON_ERROR_STOP=1 "$PG_URL" -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
"$ROOT/scripts/pg-test-cluster.sh" restart-fast "$PG_DIR"
conninfo() { echo "host=127.0.0.1 port=$PG_PORT user=postgres dbname=$1"; }

# MARK: - Rows

# The rows: bench's CSV, or generated events through the worker on SQLite (lib.sh), then split into the parts the
# worker binds (head, tail, status, after-status, clinical value: the stored resource minus its meta.versionId and
# meta.lastUpdated, which the statement writes). 0x1F separates fields (JSON holds no raw control characters).
if [ -z "$CSV" ]; then
    start_services
    make_data_sets
    "$BIN/producer" publish --brokers-file "$OUT/bootstrap" --topic "$TOPIC" "$OUT/set1.jsonl" 2>"$OUT/publish.log"
    run_workers sqlite_load 1 "sqlite:$OUT/rows.sqlite" "$TOPIC"
    dump_rows "$OUT/rows.sqlite" "$OUT/rows.csv"
    CSV=$OUT/rows.csv
    SOURCE="\`producer generate\` ($ROWS events) → devbroker → the worker on SQLite, its rows as stored"
else
    SOURCE="\`$(basename "$CSV")\` (rows as the worker stores them)"
fi
python3 - "$CSV" "$ROWS" >"$OUT/rows.us" <<'PY'
import csv, re, sys
csv.field_size_limit(1 << 24)
meta = re.compile(r'"versionId":"[^"]*","lastUpdated":"[^"]*",')
for n, (patient, metric, day, version, rid, res) in enumerate(csv.reader(open(sys.argv[1], newline=""))):
    if n == int(sys.argv[2]):
        break
    m = meta.search(res)
    head, rest = res[:m.start()], res[m.end():]
    cut = rest.index('"status":') + len('"status":')
    tail, status = rest[:cut], rest[cut + 1:rest.index('"', cut + 1)]
    after = rest[cut + len(status) + 2:]
    issued = res.index('"issued":')
    value = min(k for k in (res.find(',"valueQuantity":', issued), res.find(',"component":', issued)) if k >= 0)
    print("\x1f".join((patient, metric, day, version, rid, head, tail, status, after, res[value:-1])))
PY
ROWS=$(wc -l <"$OUT/rows.us")
put rows "$ROWS"
put row_bytes_avg "$(calc "$(head -n "$ROWS" "$CSV" | wc -c) / $ROWS")"

# MARK: - The worker's statements

# The texts the worker's store sends, from the server log of a small store run (10 records, one batch).
SQL=$OUT/sql
mkdir -p "$SQL"
psql -X -q "$PG_URL" -c "ALTER DATABASE capture SET log_min_duration_statement = 0"
"$BIN/dvp-test-tools" upsert-bench --store "$(db_url capture)" --records 10 --batch 10 >/dev/null
for name in dvp_upsert dvp_count; do
    awk -v name="$name" '
        found && /^\t/ { sub(/^\t/, ""); print; next }
        found { exit }
        index($0, "execute " name ": ") { found = 1; sub(".*execute " name ": ", ""); print }
    ' "$PG_DIR/server.log" >"$SQL/$name.sql"
    [ -s "$SQL/$name.sql" ] || { echo "error: no '$name' statement in $PG_DIR/server.log" >&2; exit 1; }
done

# The variants' statements, derived from the worker's by exact substitutions (each checked to apply).
python3 - "$SQL" <<'PY'
import re, sys
d = sys.argv[1]
upsert = open(f"{d}/dvp_upsert.sql").read()

def sub(pattern, replacement, text, count=1):
    out, n = re.subn(pattern, replacement, text, count=count, flags=re.S)
    if n != count:
        sys.exit(f"error: pattern {pattern!r} matched {n} times, expected {count}")
    return out

# COPY + merge: the same statement reading the temp table dvp_in instead of the unnested arrays.
copy = sub(r"unnest\(\$1::text\[\], \$2::text\[\].*?\)\s+AS input \(patient, metric, day, version, resource_id, head, "
           r"tail, status, after_status, clinical_value\)", "dvp_in AS input", upsert)
copy = sub(r"unnest\(\$1::text\[\], \$2::text\[\], \$3::text\[\], \$8::text\[\]\) AS i \(patient, metric, day, status\)",
           "dvp_in AS i", copy, count=4)
assert "$" not in copy
open(f"{d}/copy.sql", "w").write(copy)
open(f"{d}/noreturning.sql", "w").write(sub(r"\s*RETURNING [^\n]*\s*$", "\n", upsert))
# json / text: the composed text cast to the column's type; the race branch edits jsonb and casts back.
for kind in ("json", "text"):
    s = sub(r"\)::jsonb,", f")::{kind},", upsert)
    s = sub(r"ELSE jsonb_set\(EXCLUDED\.resource,", "ELSE (jsonb_set(EXCLUDED.resource::jsonb,", s)
    s = sub(r"\)\s+END,(\s+)version_id = o\.version_id \+ 1", rf"))::{kind} END,\1version_id = o.version_id + 1", s)
    open(f"{d}/{kind}.sql", "w").write(s)
# The retraction ledger joined once per row instead of two subqueries (the versionId one is planned twice, as the
# lateral is pulled up into both uses): the same rows, the same versionIds (the ledger has one row per key).
s = sub(r"\(SELECT r\.version_id FROM retraction AS r WHERE \(r\.patient, r\.metric, r\.day\) = "
        r"\(input\.patient, input\.metric, input\.day\)\)", "ledger.version_id", upsert)
s = sub(r"(    CROSS JOIN LATERAL \(SELECT coalesce)",
        "    LEFT JOIN retraction AS ledger\n        ON ledger.patient = input.patient AND ledger.metric = input.metric"
        " AND ledger.day = input.day\n\\1", s)
s = sub(r"NOT EXISTS \(SELECT FROM retraction AS r\s+WHERE \(r\.patient, r\.metric, r\.day\) = \(input\.patient, "
        r"input\.metric, input\.day\) AND r\.version >= input\.version\)",
        "ledger.version IS NULL OR ledger.version < input.version", s)
open(f"{d}/ledgerjoin.sql", "w").write(s)
PY

# MARK: - Variants

# name|mode|statement file|counters (count or -)|schema change after the worker's schema|what it is
VARIANTS=(
    "today|array|dvp_upsert|count||the worker's statement: unnest of 10 binary arrays, RETURNING, counters, lz4"
    "copy|copy|copy|count||binary COPY into a temp table, ANALYZE it, then the same statement reading it"
    "pipeline|pipeline|dvp_upsert|count||the worker's statements in libpq pipeline mode (2 flights per batch, not 4)"
    "json|array|json|count|ALTER TABLE observation ALTER COLUMN resource TYPE json|resource as json"
    "text|array|text|count|ALTER TABLE observation ALTER COLUMN resource TYPE text|resource as text"
    "pglz|array|dvp_upsert|count|ALTER TABLE observation ALTER COLUMN resource SET COMPRESSION pglz|compression pglz (not lz4)"
    "external|array|dvp_upsert|count|ALTER TABLE observation ALTER COLUMN resource SET STORAGE EXTERNAL|STORAGE EXTERNAL: out of line above ~2 KB, never compressed"
    "main|array|dvp_upsert|count|ALTER TABLE observation ALTER COLUMN resource SET STORAGE MAIN|STORAGE MAIN: compressed (lz4) above ~2 KB, kept inline"
    "lz4all|array|dvp_upsert|count|ALTER TABLE observation SET (toast_tuple_target = 128)|toast_tuple_target 128: every resource lz4-compressed"
    "noreturning|array|noreturning|count||without RETURNING"
    "nocounters|array|dvp_upsert|-||without the counters statement"
    "noresidx|array|dvp_upsert|count|DROP INDEX observation_resource_id|without the index observation_resource_id"
    "noprelidx|array|dvp_upsert|count|DROP INDEX observation_preliminary|without the partial index observation_preliminary"
    "ledgerjoin|array|ledgerjoin|count||the retraction ledger LEFT JOINed once (today: 3 index probes per new row)"
    "collatec|array|dvp_upsert|count|db: TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'|a database with the C collation (today's cluster: C.UTF-8)"
)
REPLACE_PLUS=3600000
if [ -n "$ONLY" ]; then
    for spec in "${VARIANTS[@]}"; do
        [[ $spec == today\|* || ,$ONLY, == *,${spec%%|*},* ]] && SELECTED+=("$spec")
    done
    VARIANTS=("${SELECTED[@]}")
fi

wal_lsn() { sql "$1" "SELECT pg_current_wal_lsn()"; }

# load DB VPLUS MODE STATEMENT COUNTERS KEY: one timed pass; records KEY_rate, KEY_cpu_us (backend CPU per row) and
# KEY_wal_b (WAL per row), each suffixed with _r<round>.
load() {
    local db=$1 vplus=$2 mode=$3 statement=$4 counters=$5 key=$6 lsn0 rows seconds cpu
    checkpoint "$db"
    lsn0=$(wal_lsn "$db")
    read -r rows seconds cpu < <("$OUT/pgvar" "$(conninfo "$db")" "$OUT/rows.us" "$SQL/$statement.sql" \
        "$([ "$counters" = - ] && echo - || echo "$SQL/dvp_count.sql")" "$mode" "$vplus")
    [ "$rows" -eq "$ROWS" ] || { echo "error: $key loaded $rows of $ROWS rows" >&2; exit 1; }
    put "${key}_rate_r$round" "$(calc "$rows / $seconds")"
    put "${key}_cpu_us_r$round" "$(calc "$cpu * 1e6 / $rows" 1)"
    put "${key}_wal_b_r$round" "$(sql "$db" "SELECT round((pg_current_wal_lsn() - '$lsn0') / $rows)")"
}

run_variant() {
    local name mode statement counters change db
    IFS='|' read -r name mode statement counters change _ <<<"$1"
    db=v_$name
    sql postgres "DROP DATABASE IF EXISTS $db" >/dev/null
    sql postgres "CREATE DATABASE $db $([[ $change == db:* ]] && echo "${change#db:}")" >/dev/null
    "$BIN/storectl" counts --store "$(db_url "$db")" >/dev/null
    [[ -z $change || $change == db:* ]] || sql "$db" "$change" >/dev/null
    log "round $round: $name"
    load "$db" 0 "$mode" "$statement" "$counters" "${name}_load"
    [ "$(sql "$db" "SELECT count(*) FROM observation WHERE version_id = 1")" -eq "$ROWS" ] ||
        { echo "error: $name: first load incomplete" >&2; exit 1; }
    put "${name}_size_mb_r$round" "$(sql "$db" "SELECT round(pg_total_relation_size('observation') / 1048576.0, 1)")"
    put "${name}_col_b_r$round" "$(sql "$db" "SELECT round(avg(pg_column_size(resource))) FROM observation")"
    put "${name}_toast_mb_r$round" "$(sql "$db" "SELECT round(pg_total_relation_size(reltoastrelid) / 1048576.0, 1)
        FROM pg_class WHERE relname = 'observation'")"
    load "$db" "$REPLACE_PLUS" "$mode" "$statement" "$counters" "${name}_replace"
    [ "$(sql "$db" "SELECT count(*) FROM observation WHERE version_id = 2
        AND (resource::jsonb)->'meta'->>'versionId' = '2'")" -eq "$ROWS" ] ||
        { echo "error: $name: replace did not write every row" >&2; exit 1; }
    sql postgres "DROP DATABASE $db" >/dev/null
}

for round in $(seq 1 "$ROUNDS"); do
    order=("${VARIANTS[@]}")
    if [ $((round % 2)) -eq 0 ]; then
        order=()
        for ((i = ${#VARIANTS[@]} - 1; i >= 0; i--)); do order+=("${VARIANTS[$i]}"); done
    fi
    for variant in "${order[@]}"; do run_variant "$variant"; done
done

# MARK: - Where today's backend time goes

log "profile of today's statement (perf, pg_stat_statements, EXPLAIN)"
sql postgres "CREATE DATABASE prof" >/dev/null
"$BIN/storectl" counts --store "$(db_url prof)" >/dev/null
sql prof "CREATE EXTENSION pg_stat_statements" >/dev/null
"$OUT/pgvar" "$(conninfo prof)" "$OUT/rows.us" "$SQL/dvp_upsert.sql" - explain 0 >"$OUT/explain-load.txt"
checkpoint prof
sql prof "SELECT pg_stat_statements_reset()" >/dev/null
rm -f "$OUT/backend.pid" "$OUT/go"
"$OUT/pgvar" "$(conninfo prof)" "$OUT/rows.us" "$SQL/dvp_upsert.sql" "$SQL/dvp_count.sql" array 0 \
    "$OUT/backend.pid" "$OUT/go" >"$OUT/profiled.txt" &
PROFILED=$!
for _ in $(seq 1 100); do [ -s "$OUT/backend.pid" ] && break; sleep 0.1; done
perf record -q -g -o "$OUT/perf.data" -p "$(cat "$OUT/backend.pid")" 2>"$OUT/perf-record.log" &
PERF=$!
sleep 1
touch "$OUT/go"
wait "$PROFILED"
kill -INT "$PERF"
wait "$PERF" || true
perf report -i "$OUT/perf.data" --no-children --sort dso,symbol --stdio -g none --percent-limit 0.8 2>/dev/null |
    grep -E '^ +[0-9]' | sed 's/ *- *- *$//' | head -n 30 >"$OUT/perf-top.txt"
sql prof "SELECT calls, round(total_exec_time::numeric / $ROWS * 1000, 1), round(rows::numeric / calls),
    round(shared_blks_hit::numeric / $ROWS, 1), round(shared_blks_dirtied::numeric / $ROWS, 2),
    round(wal_bytes / $ROWS), left(regexp_replace(query, '\\s+', ' ', 'g'), 60)
    FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'prof')
    ORDER BY total_exec_time DESC LIMIT 6" >"$OUT/statements.txt"
"$OUT/pgvar" "$(conninfo prof)" "$OUT/rows.us" "$SQL/dvp_upsert.sql" - explain "$REPLACE_PLUS" \
    >"$OUT/explain-replace.txt"

# MARK: - Report

echo "$SOURCE" >"$OUT/source.txt"
echo "$COMMAND" >"$OUT/command.txt"
put generated_at "$(date -u '+%Y-%m-%d_%H:%M_UTC')"
printf '%s\n' "${VARIANTS[@]}" >"$OUT/variants.txt"
write_postgres_report
log "wrote $REPORT"
