#!/usr/bin/env bash
# The FHIR store's throughput into sekmet-fhir next to that server's own raw write rates, measured in one run
# (`dvp-test-tools fhir-bench`), then the worker end to end against the store's own rate on the SAME events:
# the generated events mapped and upserted by the store alone into an empty server, then the worker
# (embedded broker → worker) into another empty server. Written to bench/REPORT-fhir.md.
#   Usage: bench/fhir.sh [--records N] [--batch B] [--patients P] [--in-flight K]   (defaults 5000, 100, 100, 4)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RECORDS=5000
BATCH=100
PATIENTS=100
IN_FLIGHT=4
while (($#)); do
    case "$1" in
        --records) RECORDS=$2; shift 2 ;;
        --batch) BATCH=$2; shift 2 ;;
        --patients) PATIENTS=$2; shift 2 ;;
        --in-flight) IN_FLIGHT=$2; shift 2 ;;
        *) echo "usage: bench/fhir.sh [--records N] [--batch B] [--patients P] [--in-flight K]" >&2; exit 2 ;;
    esac
done
cd "$ROOT"
for product in dvp-test-tools worker producer devbroker; do
    swift build -c release --product "$product" 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' >&2
done
BIN=$(swift build -c release --show-bin-path)
SEKMET=${DVP_SEKMET:-$(scripts/fhir-server-venv.sh)}
OUT=$(mktemp -d /tmp/dvp-fhir-bench.XXXXXX)
SERVER=""
BROKER=""
trap 'kill $SERVER $BROKER 2>/dev/null || true; wait $SERVER $BROKER 2>/dev/null || true; [ -n "${DVP_KEEP_OUT:-}" ] || rm -rf "$OUT"' EXIT

# start_server NAME: a sekmet-fhir with an empty database of its own; sets PORT and SERVER (the previous one stops).
start_server() {
    if [ -n "$SERVER" ]; then kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; fi
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat > "$OUT/$1.yaml" <<YAML
base_url: http://127.0.0.1:$PORT/fhir
host: 127.0.0.1
port: $PORT
data_dir: $OUT/$1.data
simulator: {enabled: false}
log_inbound: false
validation: {inbound: "off"}
YAML
    "$SEKMET" serve -c "$OUT/$1.yaml" > "$OUT/$1.server.log" 2>&1 &
    SERVER=$!
    for _ in $(seq 1 300); do grep -q "Uvicorn running" "$OUT/$1.server.log" && break; sleep 0.1; done
    grep -q "Uvicorn running" "$OUT/$1.server.log" || { echo "sekmet did not start: $(tail -5 "$OUT/$1.server.log")" >&2; exit 1; }
}

LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
start_server synthetic
"$BIN/dvp-test-tools" fhir-bench --store "fhir+http://127.0.0.1:$PORT/fhir" --records "$RECORDS" --batch "$BATCH" \
    | tee "$OUT/result.txt"

# The same events for the store alone and for the worker, each into an empty server.
"$BIN/producer" generate --patients "$PATIENTS" --days 10 --start-day 2026-09-01 --seed 41 --out "$OUT/events.jsonl" \
    2>/dev/null
EVENTS=$(wc -l < "$OUT/events.jsonl")
start_server store
"$BIN/dvp-test-tools" fhir-bench --store "fhir+http://127.0.0.1:$PORT/fhir" --batch "$BATCH" \
    --events "$OUT/events.jsonl" --upsert-batch 1000 --bundles-in-flight "$IN_FLIGHT" | tee -a "$OUT/result.txt"

start_server worker
"$BIN/devbroker" --brokers 1 --topic daily-values:6 --topic daily-values.dlq:1 --bootstrap-file "$OUT/bootstrap" \
    > "$OUT/devbroker.log" 2>&1 &
BROKER=$!
for _ in $(seq 1 100); do [ -s "$OUT/bootstrap" ] && break; sleep 0.1; done
"$BIN/producer" publish --brokers-file "$OUT/bootstrap" --topic daily-values "$OUT/events.jsonl" 2>"$OUT/publish.log"
T0=$(date +%s.%N)
"$BIN/worker" --brokers-file "$OUT/bootstrap" --store "fhir+http://127.0.0.1:$PORT/fhir" --group bench \
    --until-caught-up --http-port 0 --fhir-batch-size "$BATCH" --fhir-bundles-in-flight "$IN_FLIGHT" \
    -X session.timeout.ms=6000 > "$OUT/worker.out" 2> "$OUT/worker.log"
T1=$(date +%s.%N)
WORKER_RATE=$(awk "BEGIN { printf \"%d\", $EVENTS / ($T1 - $T0) }")
# Steady: from the first partition assignment until caught up (no process start, no group join), as bench/run.sh.
ts() { grep -h "$1" "$OUT/worker.log" | head -n 1 | sed 's/.*"ts":"\([^"]*\)".*/\1/'; }
FIRST=$(ts '"partitions assigned"')
LAST=$(ts '"msg":"caught up')
STEADY_RATE=$(awk "BEGIN { printf \"%d\", $EVENTS / ($(date -d "$LAST" +%s.%N) - $(date -d "$FIRST" +%s.%N)) }")
echo "worker end to end: $EVENTS events in $(awk "BEGIN { printf \"%.2f\", $T1 - $T0 }") s = $WORKER_RATE events/s;" \
    "steady $STEADY_RATE events/s" | tee -a "$OUT/result.txt"

rate() { grep "^$1:" "$OUT/result.txt" | sed 's/.*= \([0-9]*\) records\/s/\1/'; }
ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }
RAW_PUT=$(rate "raw PUT (one request each)")
RAW_BUNDLE=$(rate "raw batch Bundles of PUTs")
RAW_AGAIN=$(rate "raw batch Bundles of PUTs, again")
INSERT=$(rate "store insert")
UPDATE=$(rate "store update")
UNCHANGED=$(rate "store unchanged")
MAPPED=$(rate "store insert, mapped events")
OUTCOMES=$(grep '^outcomes:' "$OUT/result.txt" | sed 's/^outcomes: //')
SEKMET_VERSION=$(grep -i '^sekmet-fhir==' scripts/requirements-fhir-server.txt | cut -d= -f3)
VERDICT=$(awk "BEGIN { print ($STEADY_RATE >= 0.8 * $MAPPED) ? \"met\" : \"**NOT met**\" }")

cat > bench/REPORT-fhir.md <<MD
# FHIR store benchmark (sekmet-fhir)

Generated by \`bench/fhir.sh --records $RECORDS --batch $BATCH --patients $PATIENTS --in-flight $IN_FLIGHT\` on $(date -u '+%Y-%m-%d %H:%M UTC').
Each ratio compares with a rate of the **same run**.

- Machine: $(nproc) cores, load average at start $LOAD (shared with other builds: figures move with it)
- Server: sekmet-fhir $SEKMET_VERSION (FastAPI + SQLite, one uvicorn process) on 127.0.0.1, simulator off,
  inbound validation off, traffic log off
- Client: \`dvp-test-tools fhir-bench\` (release build) and the \`worker\`, $BATCH Observations per Bundle

## The server's raw rates and the store's (synthetic records)
One server, these passes in this order; records are small synthetic Observations, one upsert call per Bundle.

| pass | records/s | ratio to the raw Bundle rate |
|---|---:|---:|
| raw \`PUT Observation/{id}\`, one request each (no read, no If-Match) | $RAW_PUT | $(ratio "$RAW_PUT" "$RAW_BUNDLE") |
| raw \`batch\` Bundles of unguarded PUTs | $RAW_BUNDLE | 1.00 |
| store: new Observations (batch read, then PUT) | $INSERT | $(ratio "$INSERT" "$RAW_BUNDLE") |
| store: higher versions (batch read, then PUT with If-Match) | $UPDATE | $(ratio "$UPDATE" "$RAW_BUNDLE") |
| store: same versions again (batch read only, nothing written) | $UNCHANGED | $(ratio "$UNCHANGED" "$RAW_BUNDLE") |
| raw \`batch\` Bundles again, after the store's passes | $RAW_AGAIN | $(ratio "$RAW_AGAIN" "$RAW_BUNDLE") |

The server slows as its SQLite database grows, which the last row brackets.

## The worker end to end against the store alone, on the same events
$EVENTS generated events ($PATIENTS patients × 10 days, every built-in metric; no duplicates, no invalid events:
each one a new Observation), each side into an **empty** server of its own:
- **store alone**: the valid events mapped as the worker maps them, upserted in calls of 1000 records (the worker's
  batch), $IN_FLIGHT Bundles in flight (outcomes: $OUTCOMES);
- **worker**: the events from the embedded broker (6 partitions), one worker, \`--fhir-bundles-in-flight $IN_FLIGHT\`,
  \`--until-caught-up\`; steady = from the first partition assignment until caught up (as bench/run.sh), wall = the
  whole process with start-up and the mock's group join.

| side | events/s | ratio to the store alone |
|---|---:|---:|
| store alone (no Kafka, no decoding or mapping in the timing) | $MAPPED | 1.00 |
| worker, steady | $STEADY_RATE | $(ratio "$STEADY_RATE" "$MAPPED") |
| worker, wall | $WORKER_RATE | $(ratio "$WORKER_RATE" "$MAPPED") |

Target: worker end to end ≥ 0.8 × the store's own new-Observation rate (steady): $(ratio "$STEADY_RATE" "$MAPPED") × — $VERDICT.
MD
echo "wrote bench/REPORT-fhir.md" >&2
