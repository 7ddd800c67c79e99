#!/usr/bin/env bash
# What the number of partitions of `observation` costs the worker's statements on PostgreSQL 15: the same events into
# stores that differ only in how many (empty) monthly partitions they have besides the months around today. The
# question behind weekly or daily partitions (docs/CAPACITY.md): a generic plan opens every partition of the table
# at each execution, whatever run-time pruning then skips.
#
#   bench/partition-count.sh [--extra N1,N2,…] [--rounds R] [--patients N]
#
#   --extra     empty months added from 1950-01 on, per store (default 0,100,700: monthly for years, weekly for two
#               years, daily for two years, in partition count)
#   --rounds    alternating rounds (default 2)
#   --patients  patients x 30 days of `producer generate --seed 11` (default 300: ~126k events)
#
# Per store: a first load, then higher versions of every event (one worker, release build); PostgreSQL's CPU per
# event (the whole cluster, bench/lib.sh) and the upsert's total execution time (pg_stat_statements).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
extra_list=0,100,700 rounds=2 patients=300
while [ $# -gt 0 ]; do
    case "$1" in
        --extra) extra_list=${2:?}; shift 2 ;;
        --rounds) rounds=${2:?}; shift 2 ;;
        --patients) patients=${2:?}; shift 2 ;;
        *) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
[[ "$extra_list" =~ ^[0-9]+(,[0-9]+)*$ && "$rounds" =~ ^[1-9][0-9]*$ && "$patients" =~ ^[1-9][0-9]*$ ]] ||
    { echo "error: --extra takes counts (e.g. 0,100,700); --rounds and --patients positive numbers" >&2; exit 2; }
IFS=, read -r -a extras <<<"$extra_list"
if [ -z "${BIN_DIR:-}" ]; then (cd "$ROOT" && swift build -c release 2>&1 | tail -n 1 >&2); fi
BIN=${BIN_DIR:-$(cd "$ROOT" && swift build -c release --show-bin-path)}

OUT=$(mktemp -d /var/tmp/dvp-partition-count.XXXXXX)
chmod 755 "$OUT"  # the PostgreSQL server runs as `postgres` and must enter it
RESULTS=$OUT/results PG_DIR=$OUT/pg PG_PORT=auto PIDS=() PG_DATABASES=""
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
trap stop_bench EXIT

start_devbroker 1 load:8 replace:8 dlq:1
make_replace_sets "$patients"
"$BIN/producer" publish --brokers-file "$OUT/bootstrap" --topic load "$OUT/set1.jsonl" 2>/dev/null
"$BIN/producer" publish --brokers-file "$OUT/bootstrap" --topic replace "$OUT/set2.jsonl" 2>/dev/null
events=$EVENTS
start_postgres
psql -X -q "$PG_URL" -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
"$ROOT/scripts/pg-test-cluster.sh" restart-fast "$PG_DIR" >/dev/null

echo "events $events per run; binaries $BIN (tree at $(git -C "$ROOT" rev-parse --short HEAD)); $(date -u '+%F %H:%M UTC')"
printf '%-6s %-11s %-8s %12s %15s\n' round partitions phase pg_us_event upsert_exec_ms
for round in $(seq 1 "$rounds"); do
    for extra in "${extras[@]}"; do
        db="store_${round}_$extra"
        psql -X -q "$PG_URL" -c "CREATE DATABASE $db"
        sql "$db" "CREATE EXTENSION pg_stat_statements" >/dev/null
        "$BIN/storectl" counts --store "$(db_url "$db")" >/dev/null  # the schema, with the months around today
        if [ "$extra" -gt 0 ]; then
            sql "$db" "SELECT observation_ensure_partitions(array(SELECT to_char(d, 'YYYY-MM-DD')
                FROM generate_series(date '1950-01-01', date '1950-01-01' + ($extra - 1) * interval '1 month',
                    interval '1 month') AS d))" >/dev/null
        fi
        count=$(sql "$db" "SELECT count(*) FROM pg_inherits WHERE inhparent = 'observation'::regclass")
        for phase in load replace; do
            sql "$db" "SELECT pg_stat_statements_reset()" >/dev/null
            cpu0=$(pg_cpu_seconds)
            "$BIN/worker" --brokers-file "$OUT/bootstrap" --topic "$phase" --dlq-topic dlq --group "g-$db-$phase" \
                --store "$(db_url "$db")" --until-caught-up --http-port 0 --allow-development-key --log-level info \
                -X session.timeout.ms=6000 -X heartbeat.interval.ms=1000 >"$OUT/$db.$phase.out" 2>"$OUT/$db.$phase.log"
            cpu1=$(pg_cpu_seconds)
            exec_ms=$(sql "$db" "SELECT round(sum(total_exec_time)::numeric) FROM pg_stat_statements
                WHERE query LIKE 'WITH proposed%'")
            printf '%-6s %-11s %-8s %12s %15s\n' "$round" "$count" "$phase" \
                "$(calc "($cpu1 - $cpu0) * 1e6 / $events" 1)" "${exec_ms:--}"
        done
    done
done
