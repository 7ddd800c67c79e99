#!/usr/bin/env bash
# Where one worker process spends its CPU: `perf record -g` of a first load, an exact replay (the same topic, a new
# group) and a higher-version load of the same events, and the profile's top symbols (self time) and binaries: the
# profile that issue 39 asks for before and after a hot-path change (CPU per event without perf: bench/cpu-ab.sh).
#
#   bench/profile-worker.sh --bin DIR [--patients N] [--store postgres|sqlite] [--out DIR] [--top N]
#
#   --bin DIR      a release build directory (worker, producer, devbroker)
#   --patients N   patients x 30 days of `producer generate --seed 11` (default 300: ~129k events)
#   --store        postgres (default: a throwaway cluster) or sqlite
#   --out DIR      keep perf.*.data and the reports there (default: a temporary directory, removed)
#   --top N        symbols listed per phase (default 40)
#   --statements   (postgres) also the server's side: pg_stat_statements per phase — each statement's calls, rows,
#                  execution time per event — and the cluster's CPU per event (postmaster and its children); then
#                  the raw cost of the same rows in the same cluster: `psql`, per 1000 rows COPY into a temporary
#                  table and one INSERT … SELECT … ON CONFLICT (bench/lib.sh's raw_script), new rows, then every
#                  row one version higher
#   --event EV     record each EV with its DWARF stack instead of sampling time, e.g. a uprobe on malloc to see who
#                  allocates (`perf probe -x /lib/x86_64-linux-gnu/libc.so.6 malloc`, then `--event
#                  probe_libc:malloc`); ~8 KB a sample, and perf drops some: use a small --patients
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="" patients=300 store=postgres keep="" top=40 sampling=(-g -F 1999) statements=0
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=${2:?}; shift 2 ;;
        --patients) patients=${2:?}; shift 2 ;;
        --store) store=${2:?}; shift 2 ;;
        --out) keep=${2:?}; shift 2 ;;
        --top) top=${2:?}; shift 2 ;;
        --statements) statements=1; shift ;;
        --event) sampling=(-e "${2:?}" --call-graph dwarf,8192); shift 2 ;;
        *) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
[ -x "$bin/worker" ] || { echo "error: no worker in '$bin' (give --bin a release build directory)" >&2; exit 2; }
[[ "$store" =~ ^(postgres|sqlite)$ ]] || { echo "error: --store is postgres or sqlite" >&2; exit 2; }
[[ "$patients" =~ ^[0-9]+$ && "$top" =~ ^[0-9]+$ ]] || { echo "error: --patients and --top take numbers" >&2; exit 2; }
command -v perf >/dev/null || { echo "error: perf is not installed (apt-get install linux-perf)" >&2; exit 2; }

out=$(mktemp -d /var/tmp/dvp-profile.XXXXXX)
chmod 755 "$out"  # the PostgreSQL server runs as `postgres` and must enter it
ROOT=$root OUT=$out BIN=$bin PG_DIR=$out/pg PIDS=()
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
finish() {
    if [ -n "$keep" ]; then
        mkdir -p "$keep" && cp "$out"/perf.*.data "$out"/report.*.txt "$keep"/ 2>/dev/null || true
    fi
    stop_bench
}
trap finish EXIT

start_devbroker 1 load:8 replace:8 dlq:1
make_replace_sets "$patients"
"$bin/producer" publish --brokers-file "$out/bootstrap" --topic load "$out/set1.jsonl" 2>/dev/null
"$bin/producer" publish --brokers-file "$out/bootstrap" --topic replace "$out/set2.jsonl" 2>/dev/null
if [ "$store" = postgres ]; then
    url=$("$root/scripts/pg-test-cluster.sh" start "$out/pg" auto)
    PG_URL=$url  # bench/lib.sh's pg_cpu_seconds waits for the cluster's client backends through it
    if [ "$statements" = 1 ]; then
        psql -X -q "$url" -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
        "$root/scripts/pg-test-cluster.sh" restart-fast "$out/pg" >/dev/null
    fi
    psql -X -q "$url" -c "CREATE DATABASE profile"
    target=$(echo "$url" | sed "s#/postgres?#/profile?#")
    [ "$statements" = 0 ] || psql -X -q "$target" -c "CREATE EXTENSION pg_stat_statements"
else
    target="sqlite:$out/profile.sqlite"
fi
key=""
"$bin/worker" --help 2>&1 | grep -q allow-development-key && key="--allow-development-key"
echo "events $EVENTS per phase; store $store; worker $bin/worker"
set +o pipefail  # the reports cut perf's output short with head
for phase in load replay replace; do
    topic=$phase
    [ "$phase" = replay ] && topic=load
    if [ "$statements" = 1 ]; then
        psql -X -q "$target" -c "SELECT pg_stat_statements_reset()" >/dev/null
        p0=$(pg_cpu_seconds)
    fi
    /usr/bin/time -o "$out/time.$phase" -f '%e %U %S' perf record "${sampling[@]}" -o "$out/perf.$phase.data" -q -- \
        "$bin/worker" --brokers-file "$out/bootstrap" --topic "$topic" --dlq-topic dlq --group "profile-$phase" \
        --store "$target" --until-caught-up --http-port 0 $key --log-level warning >"$out/run.$phase.out" \
        2>"$out/run.$phase.log"
    read -r wall user sys <"$out/time.$phase"
    {
        cpu=$(calc "($user + $sys) * 1e6 / $EVENTS" 1)
        echo "## $phase: $EVENTS events, wall ${wall} s, worker+perf CPU $cpu µs/event"
        echo "### by binary"
        perf report -i "$out/perf.$phase.data" --no-children --sort dso --stdio 2>/dev/null |
            grep -E '^ +[0-9]' | head -n 8
        echo "### top symbols (self)"
        perf report -i "$out/perf.$phase.data" --no-children --sort sym --stdio -g none 2>/dev/null |
            grep -E '^ +[0-9]' | head -n "$top" | cut -c1-160
        if [ "$statements" = 1 ]; then
            sleep 1
            cluster=$(calc "($(pg_cpu_seconds) - $p0) * 1e6 / $EVENTS" 1)
            echo "### PostgreSQL: cluster CPU $cluster µs/event; statements by time"
            psql -X -q -A -F ' | ' "$target" -c "SELECT calls, rows,
                    round((total_exec_time * 1000 / $EVENTS)::numeric, 2) AS exec_us_per_event,
                    round((total_plan_time * 1000 / $EVENTS)::numeric, 2) AS plan_us_per_event,
                    left(regexp_replace(query, '\s+', ' ', 'g'), 90) AS query
                FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'profile')
                ORDER BY total_exec_time DESC LIMIT 12"
        fi
    } | tee "$out/report.$phase.txt"
done
[ "$statements" = 1 ] || exit 0
# The raw cost of the worker's own rows (as it stored them, in day order like the topic) in a fresh database.
psql -X -q -v ON_ERROR_STOP=1 "$target" -c "COPY (SELECT patient, metric, day, version, resource_id, document, status,
    clinical_digest, value, unit, min, max, systolic, diastolic, period_start, period_end FROM observation
    ORDER BY day, patient, metric) TO STDOUT (FORMAT csv)" >"$out/rows.csv"
psql -X -q "$url" -c "CREATE DATABASE raw"
raw=$(echo "$url" | sed "s#/postgres?#/raw?#")
"$bin/storectl" counts --store "$raw" >/dev/null  # the worker's schema
raw_script "$out/rows.csv" >"$out/raw.sql"
for vplus in 0 1; do
    p0=$(pg_cpu_seconds)
    psql -X -q -v ON_ERROR_STOP=1 -v vplus="$vplus" -f "$out/raw.sql" "$raw" >/dev/null
    sleep 1
    echo "## raw psql upsert, $([ "$vplus" = 0 ] && echo "new rows" || echo "higher versions"): cluster CPU" \
        "$(calc "($(pg_cpu_seconds) - $p0) * 1e6 / $EVENTS" 1) µs/event"
done | tee "$out/report.raw.txt"

