#!/usr/bin/env bash
# How the observation table's layout changes PostgreSQL's cost per upsert: unpartitioned, range by month of `day`
# (what schema 8 does) and hash by patient (16 partitions). Raw SQL on a throwaway cluster sized as bench/run.sh's,
# the same rows for each layout, the whole cluster's CPU read from /proc (bench/lib.sh). The statement has the
# schema-8 row shape (typed columns, a 160-byte document) and the version-guarded ON CONFLICT, in batches of 500 keys
# sorted as the worker sends them, each its own transaction.
#
#   bench/partitioning.sh [--patients N] [--days D] [--rounds R] [--report FILE]
#
#   --patients N  patients, 10 metrics each (default 10000)
#   --days D      days stored per patient and metric before the measurement, the last D days (default 90: 3 to 4
#                 months, so the range layout has several partitions; 9 M rows at the defaults)
#   --rounds R    rounds, alternating layouts (default 2)
#   --report FILE write the table there too (markdown)
#
# Workloads, each 100k rows (or patients x 10 when fewer), measured after the fill:
#   new day   the next day of every patient and metric (a first load: all in the newest partition)
#   replace   higher versions of stored days spread over all of them (i * 7919 mod the rows stored: no key twice),
#             as a backfill or a recomputation would send them: every partition
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
patients=10000 days=90 rounds=2 report=""
while [ $# -gt 0 ]; do
    case "$1" in
        --patients) patients=${2:?}; shift 2 ;;
        --days) days=${2:?}; shift 2 ;;
        --rounds) rounds=${2:?}; shift 2 ;;
        --report) report=${2:?}; shift 2 ;;
        *) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
for n in "$patients" "$days" "$rounds"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "error: --patients, --days and --rounds take positive numbers" >&2; exit 2; }
done

OUT=$(mktemp -d /var/tmp/dvp-partitioning.XXXXXX)
chmod 755 "$OUT"  # the PostgreSQL server runs as `postgres` and must enter it
RESULTS=$OUT/results PG_DIR=$OUT/pg PG_PORT=auto PIDS=() PG_DATABASES="unpartitioned range hash"
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
trap stop_bench EXIT
layouts=(unpartitioned range hash)
rows=$(( patients * 10 < 100000 ? patients * 10 : 100000 ))
start_postgres

# The day N days before today, as the worker writes it.
day_sql() { echo "to_char(current_date - ($1)::integer, 'YYYY-MM-DD')"; }

create_and_fill() {
    local layout=$1 clause=""
    case $layout in range) clause="PARTITION BY RANGE (day)" ;; hash) clause="PARTITION BY HASH (patient)" ;; esac
    sql "$layout" "
        CREATE TABLE obs (patient text NOT NULL, metric text NOT NULL, day text NOT NULL, version bigint NOT NULL,
            resource_id text NOT NULL, document bytea, version_id bigint NOT NULL, last_updated timestamptz NOT NULL,
            status text, clinical_digest bytea, value float8, unit text, period_start timestamptz,
            period_end timestamptz, PRIMARY KEY (patient, metric, day)) $clause" >/dev/null
    case $layout in
        range) sql range "
            DO \$\$ DECLARE m date; BEGIN
                FOR m IN SELECT generate_series(date_trunc('month', current_date - $days),
                        date_trunc('month', current_date + 1), '1 month')::date LOOP
                    EXECUTE format('CREATE TABLE %I PARTITION OF obs FOR VALUES FROM (%L) TO (%L)',
                        'obs_' || to_char(m, 'YYYY_MM'), to_char(m, 'YYYY-MM-DD'),
                        to_char(m + interval '1 month', 'YYYY-MM-DD'));
                END LOOP; END \$\$" >/dev/null ;;
        hash) sql hash "
            DO \$\$ BEGIN FOR i IN 0..15 LOOP
                EXECUTE format('CREATE TABLE obs_h%s PARTITION OF obs FOR VALUES WITH (MODULUS 16, REMAINDER %s)', i, i);
            END LOOP; END \$\$" >/dev/null ;;
    esac
    sql "$layout" "$(rows_sql "SELECT 'p' || lpad(p::text, 7, '0'), 'm' || m, $(day_sql "d + 1"), 1::bigint
        FROM generate_series(0, $patients - 1) p, generate_series(0, 9) m, generate_series(0, $days - 1) d" insert)" >/dev/null
    sql "$layout" "VACUUM ANALYZE obs" >/dev/null
    checkpoint "$layout"
}

# An INSERT of the rows of the query $1 (patient, metric, day, version); "upsert" adds the version-guarded replace.
rows_sql() {
    local conflict=""
    [ "$2" = upsert ] && conflict="ON CONFLICT (patient, metric, day) DO UPDATE
        SET version = EXCLUDED.version, document = EXCLUDED.document, value = EXCLUDED.value,
            version_id = o.version_id + 1, last_updated = EXCLUDED.last_updated
        WHERE o.version < EXCLUDED.version"
    echo "INSERT INTO obs AS o (patient, metric, day, version, resource_id, document, version_id, last_updated, status,
            clinical_digest, value, unit, period_start, period_end)
        SELECT k.patient, k.metric, k.day, k.version, md5(k.patient || k.metric || k.day),
            decode(repeat(md5(k.patient || k.day), 5), 'hex'), 1, now(), 'final', decode(md5(k.metric), 'hex'),
            k.version % 1000, 'count', k.day::date, k.day::date + 1
        FROM ($1) AS k (patient, metric, day, version)
        ORDER BY k.patient COLLATE \"C\", k.metric COLLATE \"C\", k.day COLLATE \"C\" $conflict"
}

# The statements of a workload, one per batch of 500 (round $2 makes the replaced days and versions differ).
workload_script() {
    local workload=$1 round=$2 batch
    echo "SET synchronous_commit = off;"
    for ((batch = 0; batch < rows; batch += 500)); do
        local range="generate_series($batch, $(( batch + 499 < rows - 1 ? batch + 499 : rows - 1 ))) i"
        case $workload in
            new) rows_sql "SELECT 'p' || lpad((i / 10)::text, 7, '0'), 'm' || (i % 10), $(day_sql "-$round"), 1::bigint
                    FROM $range" upsert ;;
            replace) rows_sql "SELECT 'p' || lpad((h % $patients)::text, 7, '0'), 'm' || (h / $patients % 10),
                        $(day_sql "h / $patients / 10 % $days + 1"), (1000 + $round)::bigint
                    FROM $range, LATERAL (SELECT (i::bigint * 7919 + $round * 104729) % $(( patients * 10 * days ))) AS x (h)" upsert ;;
        esac
        echo ";"
    done
}

measure() {
    local layout=$1 workload=$2 round=$3 cpu0 t0 t1
    workload_script "$workload" "$round" >"$OUT/script.sql"
    cpu0=$(pg_cpu_seconds)
    t0=$(now)
    psql -X -q -v ON_ERROR_STOP=1 "$(db_url "$layout")" -f "$OUT/script.sql" >/dev/null
    t1=$(now)
    put "${layout}_${workload}_${round}_pg_cpu_us" "$(calc "($(pg_cpu_seconds) - $cpu0) * 1e6 / $rows" 1)"
    put "${layout}_${workload}_${round}_rate" "$(calc "$rows / ($t1 - $t0)")"
}

for layout in "${layouts[@]}"; do
    log "filling $layout: $patients patients x 10 metrics x $days days"
    create_and_fill "$layout"
    put "${layout}_fill_bytes_per_row" "$(calc "$(sql "$layout" "SELECT sum(pg_total_relation_size(c.oid))
        FROM pg_class c WHERE c.relname LIKE 'obs%' AND c.relkind = 'r'") / ($patients * 10 * $days)" 1)"
done
for round in $(seq 1 "$rounds"); do
    for workload in new replace; do
        for layout in "${layouts[@]}"; do measure "$layout" "$workload" "$round"; done
    done
done

table=$(
    echo "| layout | new day: PostgreSQL CPU µs/row | new day: rows/s | replace: PostgreSQL CPU µs/row | replace: rows/s | bytes/row after the fill |"
    echo "|---|---|---|---|---|---|"
    for layout in "${layouts[@]}"; do
        cells=""
        for workload in new replace; do
            cpus="" rates=""
            for round in $(seq 1 "$rounds"); do
                cpus+="${cpus:+ / }$(get "${layout}_${workload}_${round}_pg_cpu_us")"
                rates+="${rates:+ / }$(get "${layout}_${workload}_${round}_rate")"
            done
            cells+=" $cpus | $rates |"
        done
        echo "| $layout |$cells $(get "${layout}_fill_bytes_per_row") |"
    done
)
echo "$table"
if [ -n "$report" ]; then
    {
        echo "# Partitioning: unpartitioned, range by month, hash by patient"
        echo
        echo "\`bench/partitioning.sh --patients $patients --days $days --rounds $rounds\`, $(date -u +%Y-%m-%d), $(nproc) cores."
        echo "$(( patients * 10 * days )) rows stored per layout before the measurement; each workload $rows rows"
        echo "in batches of 500, rounds separated by \" / \"."
        echo
        echo "$table"
    } >"$report"
fi
