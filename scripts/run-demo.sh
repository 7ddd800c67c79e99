#!/usr/bin/env bash
# The main job on embedded defaults, from a bare Debian 12 machine with the Swift toolchain:
# installs packages, builds, starts the embedded broker (librdkafka mock cluster), generates a realistic sample,
# runs the worker into SQLite until caught up, and shows the result.
#   scripts/run-demo.sh                 # SQLite, one worker
#   scripts/run-demo.sh --postgres      # PostgreSQL (a throwaway local cluster) and two workers
# Sizes: DVP_DEMO_PATIENTS (default 200), DVP_DEMO_DAYS (default 14).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mode=sqlite
[[ "${1:-}" == "--postgres" ]] && mode=postgres
patients=${DVP_DEMO_PATIENTS:-200}
days=${DVP_DEMO_DAYS:-14}
step() { printf '\n==> %s\n' "$*" >&2; }

step "Installing packages"
scripts/install-deps.sh
step "Building (release)"
swift build -c release 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' >&2
bin=$(swift build -c release --show-bin-path)

run=$root/var/demo
rm -rf "$run"; mkdir -p "$run"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    [[ $mode == postgres ]] && scripts/pg-test-cluster.sh stop /var/tmp/dvp-demo-pg >/dev/null 2>&1 || true
}
trap cleanup EXIT

step "Starting the embedded broker (in-memory, development only)"
"$bin/devbroker" --brokers 3 --topic daily-values:12 --topic daily-values.dlq:3 \
    --bootstrap-file "$run/bootstrap" >"$run/devbroker.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [[ -s $run/bootstrap ]] && break; sleep 0.1; done
[[ -s $run/bootstrap ]] || { cat "$run/devbroker.log" >&2; echo "devbroker did not start" >&2; exit 1; }
echo "bootstrap: $(head -n 1 "$run/bootstrap")" >&2

step "Generating $patients patients x $days days x every metric (with late, duplicate, out-of-order and invalid events)"
"$bin/producer" generate --patients "$patients" --days "$days" --seed 42 --late-share 0.05 --duplicate-share 0.02 \
    --out-of-order-share 0.02 --invalid-share 0.005 --out "$run/events.jsonl" --oracle-out "$run/oracle.tsv"
step "Publishing (invalid events included on purpose: they must reach the dead-letter topic)"
"$bin/producer" publish --brokers-file "$run/bootstrap" --raw "$run/events.jsonl"

# No id key here: the demo says so explicitly with --allow-development-key (the published development key makes
# Observation ids guessable: never in production). devbroker's own bootstrap file would also be accepted without the
# flag (its marker line and loopback-only addresses); against any other cluster the worker refuses to start without
# --id-key-file / DVP_ID_KEY.
if [[ $mode == sqlite ]]; then
    store="sqlite:$run/observations.sqlite"
    step "Running the worker until caught up (store: $store)"
    "$bin/worker" --brokers-file "$run/bootstrap" --store "$store" --http-port 0 --until-caught-up --allow-development-key \
        --log-level warning
else
    step "Starting a throwaway PostgreSQL"
    pgdir=/var/tmp/dvp-demo-pg   # outside the checkout: the server runs as the `postgres` user
    scripts/pg-test-cluster.sh stop "$pgdir" >/dev/null 2>&1 || true
    rm -rf "$pgdir"
    store=$(scripts/pg-test-cluster.sh start "$pgdir" "${DVP_DEMO_PG_PORT:-auto}")
    step "Running two workers in one group until caught up (store: PostgreSQL)"
    "$bin/worker" --brokers-file "$run/bootstrap" --store "$store" --http-port 0 --until-caught-up --allow-development-key \
        --worker-id demo-1 --log-level warning &
    w1=$!
    "$bin/worker" --brokers-file "$run/bootstrap" --store "$store" --http-port 0 --until-caught-up --allow-development-key \
        --worker-id demo-2 --log-level warning &
    w2=$!
    wait $w1; wait $w2
fi

step "Result: upsert outcomes per metric"
"$bin/storectl" counts --store "$store"
step "Stored resource sizes (compact JSON)"
"$bin/storectl" sizes --store "$store" | tee "$run/sizes.txt"
step "Compared with the generator's oracle"
"$bin/storectl" dump --store "$store" | sort >"$run/store.tsv"
grep -v '^#' "$run/oracle.tsv" | grep -v '^invalid' | sort >"$run/expected.tsv" || true
step "One Observation in full"
"$bin/storectl" show --store "$store" "$(sed -n '1s/\t.*//p' "$run/store.tsv")" | python3 -m json.tool
echo >&2
if diff -q "$run/expected.tsv" "$run/store.tsv" >/dev/null; then
    echo "store == oracle: $(wc -l <"$run/store.tsv") identities at their highest version;" \
        "$(grep -c '^invalid' "$run/oracle.tsv") invalid events in the dead-letter topic;" \
        "average stored resource $(awk '$1 == "(all)" {print $3}' "$run/sizes.txt") bytes" >&2
else
    echo "store differs from the oracle (see $run/expected.tsv vs $run/store.tsv)" >&2
    exit 1
fi
