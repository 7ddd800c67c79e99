#!/usr/bin/env bash
# The cost curve: how the real worker's upsert rate on PostgreSQL changes as the store grows to 1 M, 5 M and 20 M
# rows (issue "Population scale", part 3). One store grows through the sizes; at each size the worker (release
# build, one process, defaults) runs two workloads, each from its own topic of the embedded mock cluster:
#
#   new day   a first load: the next local day of every patient (the generator's events for that day, every metric
#             profile it draws): all of it lands in the newest partition, which holds the month's earlier days
#   replace   higher versions of random older days: the same events with their day moved to a random stored day
#             (seeded; one per patient and metric, so no key twice) and a higher version: every partition
#
#   bench/cost-curve.sh [--patients N] [--sizes M1,M2,…] [--rounds R] [--pg-setting NAME=VALUE]… [--report FILE]
#                       [--plot FILE]
#
#   --patients N  people (default 10000: 220 k stored rows a day, 22 metrics each)
#   --sizes       stored rows before the first round of each size, in millions (default 1,5,20)
#   --rounds R    new-day and replace rounds at each size (default 2; the rate is their mean)
#   --pg-setting  a server setting (ALTER SYSTEM) on top of bench/lib.sh's, e.g. shared_buffers=6GB; repeatable
#   --report FILE the markdown report (default bench/REPORT-cost-curve.md)
#   --plot FILE   the PNG plot of rate against stored rows (default bench/cost-curve.png; needs python3-matplotlib,
#                 installed with apt-get when missing)
#
# The fill is fast and direct: one template row per metric, written by the real worker (so documents, digests,
# units and periods have the real shape and size), copied by SQL to every patient and day, oldest days last (the
# store grows into the past, as a backfill would), through observation_ensure_partitions like the worker. Every
# patient has every metric every day, denser than the generator (its sparse metrics skip days). After each fill:
# VACUUM ANALYZE and a CHECKPOINT (autovacuum is off during the measurement, as in bench/run.sh).
#
# Per workload it records the steady rate (bench/lib.sh: first assignment to caught up), the worker's and the
# cluster's CPU per event, WAL bytes and full-page images per event (pg_stat_wal) and the blocks PostgreSQL read
# from outside its buffer cache per event (pg_stat_database); per size the table (heap + TOAST) and index bytes per
# row.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
command="bench/cost-curve.sh${*:+ $*}"
patients=10000 sizes=1,5,20 rounds=2 report="$ROOT/bench/REPORT-cost-curve.md" plot="$ROOT/bench/cost-curve.png"
settings=()
while [ $# -gt 0 ]; do
    case "$1" in
        --patients) patients=${2:?}; shift 2 ;;
        --sizes) sizes=${2:?}; shift 2 ;;
        --rounds) rounds=${2:?}; shift 2 ;;
        --pg-setting) settings+=("${2:?}"); shift 2 ;;
        --report) report=${2:?}; shift 2 ;;
        --plot) plot=${2:?}; shift 2 ;;
        *) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
[[ "$patients" =~ ^[1-9][0-9]*$ && "$rounds" =~ ^[1-9][0-9]*$ ]] ||
    { echo "error: --patients and --rounds take positive numbers" >&2; exit 2; }
[[ "$sizes" =~ ^[0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*$ ]] ||
    { echo "error: --sizes takes millions of rows, comma-separated, e.g. 1,5,20" >&2; exit 2; }
IFS=, read -r -a size_list <<<"$sizes"
for setting in "${settings[@]}"; do
    [[ "$setting" =~ ^[a-z_]+=[A-Za-z0-9_.]+$ ]] || { echo "error: --pg-setting takes NAME=VALUE, e.g. shared_buffers=6GB" >&2; exit 2; }
done

/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-matplotlib >/dev/null
if [ -z "${BIN_DIR:-}" ]; then (cd "$ROOT" && swift build -c release 2>&1 | tail -n 1 >&2); fi
BIN=${BIN_DIR:-$(cd "$ROOT" && swift build -c release --show-bin-path)}

OUT=$(mktemp -d /var/tmp/dvp-cost-curve.XXXXXX)
chmod 755 "$OUT"  # the PostgreSQL server runs as `postgres` and must enter it
RESULTS=$OUT/results PG_DIR=$OUT/pg PG_PORT=auto PIDS=() PG_DATABASES="curve"
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
DLQ=dlq  # after lib.sh, which names bench/run.sh's
trap stop_bench EXIT

# Days: the rounds' new days are the last days of last month, one a round; the fill ends the day before the first
# of them and grows into the past. So each new day lands in a month that holds every filled day of that month: at the
# largest size nearly a whole month, the end-of-month worst case (a month's partition is as large as it gets), not
# the nearly empty partition of a month's first days.
new_days=$(( ${#size_list[@]} * rounds ))
[ "$new_days" -le 20 ] || { echo "error: sizes x rounds is at most 20 (new days at the end of one month)" >&2; exit 2; }
month_end=$(date -u -d "$(date -u +%Y-%m-01) -1 day" +%F)
first_new=$(date -u -d "$month_end -$((new_days - 1)) days" +%F)
day_before() { date -u -d "$first_new -$1 days" +%F; }  # day_before 1 = the newest filled day

topics=("template:1" "$DLQ:1")
for s in $(seq 1 "$new_days"); do topics+=("new$s:8" "replace$s:8"); done
start_devbroker 1 "${topics[@]}"
start_postgres
put command "$command"
put build "$(git -C "$ROOT" rev-parse --short HEAD)${BIN_DIR:+ (binaries of $BIN_DIR)}"
put date "$(date -u '+%F %H:%M UTC'), $(nproc) cores"
if [ "${#settings[@]}" -gt 0 ]; then
    for setting in "${settings[@]}"; do
        psql -X -q "$PG_URL" -c "ALTER SYSTEM SET ${setting%%=*} = '${setting#*=}'"
        put setting "$setting"
    done
    "$ROOT/scripts/pg-test-cluster.sh" restart-fast "$PG_DIR"
fi
put shared_buffers "$(sql curve "SHOW shared_buffers")"
put wal_compression "$(sql curve "SHOW wal_compression")"
STORE="$(db_url curve)"
log "output in $OUT; store $STORE"

# The template: one worker-written row per metric, kept aside, on a day no workload touches.
"$BIN/producer" generate --patients 50 --days 1 --start-day "$(day_before 400)" --seed 5 --out "$OUT/template.jsonl" 2>/dev/null
"$BIN/producer" publish --brokers-file "$OUT/bootstrap" --topic template "$OUT/template.jsonl" 2>/dev/null
EVENTS=$(wc -l <"$OUT/template.jsonl") run_workers template 1 "$STORE" template >/dev/null 2>&1
sql curve "CREATE TABLE bench_template AS SELECT DISTINCT ON (metric) * FROM observation ORDER BY metric, patient;
    DELETE FROM observation;" >/dev/null
metrics=$(sql curve "SELECT count(*) FROM bench_template")
per_day=$(( patients * metrics ))
log "template: $metrics metrics; $per_day rows per filled day"

filled=0  # days filled so far, back from the newest
# fill_to ROWS: adds older days until the fill holds at least ROWS rows.
fill_to() {
    local want_days=$(( ($1 + per_day - 1) / per_day )) d day t0
    [ "$want_days" -gt "$filled" ] || return 0
    t0=$(now)
    for d in $(seq $((filled + 1)) "$want_days"); do
        day=$(day_before "$d")
        sql curve "SELECT observation_ensure_partitions(ARRAY['$day']);
            INSERT INTO observation (patient, metric, day, version, resource_id, document, version_id, last_updated,
                status, clinical_digest, value, unit, min, max, systolic, diastolic, period_start, period_end)
            SELECT k.patient, t.metric, '$day', 1,
                encode(sha256(convert_to(k.patient || '/' || t.metric || '/$day', 'UTF8')), 'hex'), t.document, 1,
                now(), t.status, t.clinical_digest, t.value, t.unit, t.min, t.max, t.systolic, t.diastolic,
                t.period_start + (date '$day' - t.day::date) * interval '1 day',
                t.period_end + (date '$day' - t.day::date) * interval '1 day'
            FROM generate_series(1, $patients) AS p, LATERAL (SELECT 'p-' || lpad(p::text, 6, '0') AS patient) AS k,
                bench_template AS t
            ORDER BY 1, 2" >/dev/null
    done
    filled=$want_days
    sql curve "VACUUM ANALYZE observation" >/dev/null
    checkpoint curve
    put "fill_${1}_seconds" "$(calc "$(now) - $t0" 1)"
}

wal_lsn() { sql curve "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn"; }
# Full-page images written and blocks read from outside shared buffers, so far (the counters of ended backends).
pg_counters() {
    sql curve "SELECT (SELECT wal_fpi FROM pg_stat_wal), (SELECT blks_read FROM pg_stat_database
        WHERE datname = current_database())" | tr '|' ' '
}

# workload KIND ROUND FILE: publishes FILE to KIND$ROUND and measures the worker on it.
workload() {
    local kind=$1 round=$2 file=$3 w0 n fpi0 read0 fpi1 read1
    "$BIN/producer" publish --brokers-file "$OUT/bootstrap" --topic "$kind$round" "$file" 2>/dev/null
    n=$(kcat_count "$kind$round")
    [ "$n" -eq "$(wc -l <"$file")" ] || { echo "error: $kind$round holds $n of $(wc -l <"$file") events" >&2; exit 1; }
    checkpoint curve
    w0=$(wal_lsn)
    read -r fpi0 read0 < <(pg_counters)
    EVENTS=$n run_workers "$kind$round" 1 "$STORE" "$kind$round"
    put "$kind${round}_wal_bytes" "$(calc "($(wal_lsn) - $w0) / $n")"
    read -r fpi1 read1 < <(pg_counters)
    put "$kind${round}_fpi" "$(calc "($fpi1 - $fpi0) / $n" 2)"
    put "$kind${round}_blocks_read" "$(calc "($read1 - $read0) / $n" 2)"
    put "$kind${round}_events" "$n"
}

round=0
for size in "${size_list[@]}"; do
    fill_to "$(calc "$size * 1000000")"
    for _ in $(seq 1 "$rounds"); do
        round=$((round + 1))
        day=$(date -u -d "$first_new +$((round - 1)) days" +%F)
        put "round${round}_size" "$size"
        put "round${round}_rows" "$(sql curve "SELECT count(*) FROM observation")"
        put "round${round}_month_rows" "$(sql curve "SELECT count(*) FROM observation
            WHERE day >= '${day:0:7}-01' AND day < '$(date -u -d "${day:0:7}-01 +1 month" +%F)'")"
        read -r heap index < <(sql curve "SELECT sum(pg_table_size(relid)), sum(pg_indexes_size(relid))
            FROM pg_partition_tree('observation') WHERE isleaf" | tr '|' ' ')
        put "round${round}_table_bytes" "$heap"
        put "round${round}_index_bytes" "$index"
        "$BIN/producer" generate --patients "$patients" --days 1 --start-day "$day" --seed "$((100 + round))" \
            --out "$OUT/new$round.jsonl" 2>/dev/null
        # The same patients and metrics on random stored days (one per line: no key twice), with versions above any
        # earlier round's (which may have replaced the same day).
        perl -e 'my ($seed, $newest, $span) = @ARGV; @ARGV = (); srand($seed);
            while (<STDIN>) {
                my @t = gmtime($newest - 86400 * int(rand($span)));
                my $day = sprintf("%04d-%02d-%02d", $t[5] + 1900, $t[4] + 1, $t[3]);
                s/"day":"[^"]*"/"day":"$day"/; s/"version":(\d+)/"version":@{[$1 + $seed * 100000000000]}/; print }' \
            "$round" "$(date -u -d "$(day_before 1)" +%s)" "$filled" <"$OUT/new$round.jsonl" >"$OUT/replace$round.jsonl"
        workload new "$round" "$OUT/new$round.jsonl"
        workload replace "$round" "$OUT/replace$round.jsonl"
    done
done
put disk_bytes "$(du -sb "$PG_DIR" | cut -f1)"
put disk_free_bytes "$(df -B1 --output=avail "$OUT" | tail -n 1 | tr -d ' ')"
cp "$RESULTS" "$OUT/results.txt"
/usr/bin/python3 "$ROOT/bench/cost-curve-report.py" "$RESULTS" --rounds "$rounds" --report "$report" --plot "$plot"
log "report: $report; plot: $plot"
