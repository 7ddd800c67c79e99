#!/usr/bin/env bash
# CPU per event of two worker builds on the same events, alternating: the A/B that stays meaningful on a shared
# machine, where wall-clock rates swing with other load.
#
#   bench/cpu-ab.sh --a DIR --b DIR [--patients N] [--rounds R] [--store postgres|sqlite] [--processes 1|2]
#                   [--b-ledger N]
#
#   --a / --b      two release build directories (each with worker, producer, devbroker), e.g. a clone's
#                  `.build/release` checked out at another commit
#   --patients N   patients x 30 days of `producer generate --seed 11` (default 300: ~129k events)
#   --rounds R     alternating rounds (default 3): odd rounds A then B, even rounds B then A
#   --store        postgres (default: a throwaway cluster, also measured) or sqlite
#   --processes    worker processes per run, in one consumer group (default 1; 2 needs postgres)
#   --b-ledger N   B's stores start with N persons (none of the data set's) withdrawn in the erasure ledger, so that
#                  its batches check every event against a non-empty ledger (needs storectl in B's directory)
#
# Per run: a fresh database, a new consumer group, first load, then higher versions (every event + 1 h); prints the
# workers' user+sys CPU per event (/usr/bin/time) and, on PostgreSQL, the cluster's (postmaster + children, reaped
# ones through its cutime/cstime) per event, the wall time, and the steady rate: events / (the latest of each
# process's first "caught up" − the first partition assignment), as bench/run.sh takes it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
a="" b="" patients=300 rounds=3 store=postgres processes=1 ledger=0
while [ $# -gt 0 ]; do
    case "$1" in
        --a) a=${2:?}; shift 2 ;;
        --b) b=${2:?}; shift 2 ;;
        --patients) patients=${2:?}; shift 2 ;;
        --rounds) rounds=${2:?}; shift 2 ;;
        --store) store=${2:?}; shift 2 ;;
        --processes) processes=${2:?}; shift 2 ;;
        --b-ledger) ledger=${2:?}; shift 2 ;;
        *) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
for dir in "$a" "$b"; do
    [ -x "$dir/worker" ] || { echo "error: no worker in '$dir' (give --a and --b release build directories)" >&2; exit 2; }
done
[[ "$store" =~ ^(postgres|sqlite)$ ]] || { echo "error: --store is postgres or sqlite" >&2; exit 2; }
[[ "$processes" =~ ^[12]$ ]] || { echo "error: --processes is 1 or 2" >&2; exit 2; }
[[ "$ledger" =~ ^[0-9]+$ ]] || { echo "error: --b-ledger takes a number" >&2; exit 2; }
[ "$ledger" = 0 ] || [ -x "$b/storectl" ] || { echo "error: --b-ledger needs storectl in $b" >&2; exit 2; }
[ "$processes" = 1 ] || [ "$store" = postgres ] || { echo "error: --processes 2 needs --store postgres" >&2; exit 2; }

out=$(mktemp -d /var/tmp/dvp-cpu-ab.XXXXXX)
chmod 755 "$out"  # the PostgreSQL server runs as `postgres` and must enter it
# bench/lib.sh's devbroker, data sets and exit trap, with A's tools.
ROOT=$root OUT=$out BIN=$a PG_DIR=$out/pg PIDS=()
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
pids=()  # the workers of the current phase
trap 'PIDS+=("${pids[@]}"); stop_bench' EXIT

start_devbroker 1 load:8 replace:8 dlq:1
make_replace_sets "$patients"
events=$EVENTS
"$a/producer" publish --brokers-file "$out/bootstrap" --topic load "$out/set1.jsonl" 2>/dev/null
"$a/producer" publish --brokers-file "$out/bootstrap" --topic replace "$out/set2.jsonl" 2>/dev/null
if [ "$store" = postgres ]; then
    url=$("$root/scripts/pg-test-cluster.sh" start "$out/pg" auto)
fi

# CPU seconds the PostgreSQL cluster has used so far.
pg_cpu() {
    [ "$store" = postgres ] || { echo 0; return; }
    local pm
    pm=$(head -n 1 "$out/pg/postmaster.pid")
    { cat "/proc/$pm/stat"; for child in $(pgrep -P "$pm"); do cat "/proc/$child/stat" 2>/dev/null || true; done; } |
        awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); t += $12 + $13; if (NR == 1) t += $14 + $15 }
            END { printf "%.2f", t / hz }'
}

# The first "partitions assigned" and the latest first "caught up" of the run's logs, in epoch seconds.
log_time() { sed 's/.*"ts":"\([^"]*\)".*/\1/' | xargs -r -I{} date -d {} +%s.%N; }
steady_rate() {
    local first last
    first=$(grep -h '"partitions assigned"' "$out"/run.*.log | log_time | sort -n | head -n 1)
    last=$(for i in $(seq 1 "$processes"); do grep -h '"msg":"caught up' "$out/run.$i.log" | head -n 1 | log_time; done |
        sort -n | tail -n 1)
    awk -v f="$first" -v l="$last" -v n="$events" 'BEGIN { if (f == "" || l == "") print "-"; else printf "%.0f", n / (l - f) }'
}

echo "events $events per run; store $store; processes $processes; A=$a B=$b; B's ledger: $ledger persons"
printf '%-6s %-8s %-3s %8s %12s %12s %10s\n' round phase run wall_s worker_us_ev store_us_ev steady_ev_s
for round in $(seq 1 "$rounds"); do
    # Odd rounds A first, even rounds B first: the side that runs second meets the server's after-work of the
    # first (checkpoint, autovacuum), which a fixed order would charge to B every time.
    sides="A B"
    [ $((round % 2)) = 0 ] && sides="B A"
    for side in $sides; do
        dir=$a
        [ "$side" = B ] && dir=$b
        key=""
        "$dir/worker" --help 2>&1 | grep -q allow-development-key && key="--allow-development-key"
        if [ "$store" = postgres ]; then
            db="ab_${side,,}_$round"  # lower case: PostgreSQL folds unquoted names
            psql -X -q "$url" -c "CREATE DATABASE $db"
            target=$(echo "$url" | sed "s#/postgres?#/$db?#")
        else
            target="sqlite:$out/ab-$side-$round.sqlite"
        fi
        if [ "$side" = B ] && [ "$ledger" != 0 ]; then
            seq 1 "$ledger" | sed 's/^/withdrawn-bench-/' > "$out/ledger-ids"
            "$b/storectl" erase --store "$target" --allow-development-key --patient-file "$out/ledger-ids" \
                --mode withdraw --reference bench >/dev/null
        fi
        for phase in load replace; do
            sleep 1
            p0=$(pg_cpu)
            rm -f "$out"/run.*.log
            pids=()
            for i in $(seq 1 "$processes"); do
                /usr/bin/time -o "$out/time.$i" -f '%e %U %S' "$dir/worker" --brokers-file "$out/bootstrap" \
                    --topic "$phase" --dlq-topic dlq --group "ab-$side-$round-$phase" --store "$target" \
                    --until-caught-up --http-port 0 $key --log-level info \
                    -X session.timeout.ms=6000 -X heartbeat.interval.ms=1000 >"$out/run.$i.out" 2>"$out/run.$i.log" &
                pids+=($!)
            done
            wait "${pids[@]}"
            sleep 2
            p1=$(pg_cpu)
            read -r wall user sys < <(cat "$out"/time.* | awk '{ w = $1 > w ? $1 : w; u += $2; s += $3 } END { print w, u, s }')
            printf '%-6s %-8s %-3s %8s %12s %12s %10s\n' "$round" "$phase" "$side" "$wall" \
                "$(awk -v u="$user" -v s="$sys" -v n="$events" 'BEGIN { printf "%.1f", (u + s) * 1e6 / n }')" \
                "$(awk -v a="$p0" -v b="$p1" -v n="$events" 'BEGIN { printf "%.1f", (b - a) * 1e6 / n }')" \
                "$(steady_rate)"
        done
    done
done
