#!/usr/bin/env bash
# The embedded default against its Python peer, side by side in one run (issue 39): the worker on SQLite and
# ../shared/bench/peer/peer_worker_sqlite.py on the same events from the same broker, one process each, first load
# then exact replay (a new group each), in turns (worker, peer, worker, peer).
#
#   bench/sqlite-peer.sh [--events N] [--partitions P] [--bin DIR]
#
#   --events N        events in the data set (default 147000, the issue's side-by-side)
#   --partitions P    partitions of the topic (default 32)
#   --bin DIR         worker, producer and devbroker from DIR (default: the release build, built if missing)
#
# Rates leave out the group join on both sides: the worker's from its first partition assignment to its first
# "caught up" line, the peer's its own figure (first record to last commit). CPU is whole-process user+sys of each
# process (/usr/bin/time), per event. Bytes per row: the database file after a truncating checkpoint / its rows.
# Figures go to bench/out/sqlite-peer/results.txt (and stderr); the load average is recorded at start and end.
set -euo pipefail

EVENTS=147000
PARTITIONS=32
BIN_DIR=""
usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --events) EVENTS=${2:?}; shift 2 ;;
        --partitions) PARTITIONS=${2:?}; shift 2 ;;
        --bin) BIN_DIR=${2:?}; shift 2 ;;
        -h|--help) usage ;;
        *) echo "error: unknown option '$1'" >&2; usage ;;
    esac
done
[[ "$EVENTS" =~ ^[0-9]+$ && "$EVENTS" -ge 1000 ]] || { echo "error: --events must be a number >= 1000" >&2; exit 2; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out/sqlite-peer
mkdir -p "$OUT"
RESULTS=$OUT/results.txt
: >"$RESULTS"
PG_DIR=$OUT/no-postgres   # lib.sh reads no PostgreSQL CPU without a cluster here
PIDS=()
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
# shellcheck source=bench/peer.sh
source "$ROOT/bench/peer.sh"
PEER=$PEER_DIR/peer_worker_sqlite.py
trap 'for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done' EXIT

[ -f "$PEER" ] || { echo "error: $PEER is absent" >&2; exit 1; }
/usr/bin/python3 -c 'import confluent_kafka' 2>/dev/null ||
    { echo "error: python3-confluent-kafka is missing (apt-get install python3-confluent-kafka)" >&2; exit 1; }
cd "$ROOT"
if [ -z "$BIN_DIR" ]; then
    nice -n 19 swift build -c release 2>&1 | tail -n 1 >&2
    BIN=$(swift build -c release --show-bin-path)
else
    BIN=$BIN_DIR
fi
put commit "$(git rev-parse --short HEAD)"
put load_at_start "$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')"

start_devbroker 1 "$TOPIC:$PARTITIONS" "$DLQ:3"
make_data_sets
"$BIN/producer" publish --brokers-file "$OUT/bootstrap" --topic "$TOPIC" "$OUT/set1.jsonl" 2>"$OUT/publish.log"
[ "$(kcat_count "$TOPIC")" -eq "$EVENTS" ] || { echo "error: the topic does not hold all $EVENTS events" >&2; exit 1; }

# row_bytes LABEL DB TABLE: the file's bytes per row once the WAL is checkpointed into it.
row_bytes() {
    local rows
    sqlite3 "$2" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
    rows=$(sqlite3 "$2" "SELECT count(*) FROM $3")
    put "${1}_rows" "$rows"
    put "${1}_row_bytes" "$(calc "$(stat -c %s "$2") / $rows")"
}

rm -f "$OUT"/worker.sqlite* "$OUT"/peer.sqlite*
log "first load: worker, then peer"
run_workers worker_load 1 "sqlite:$OUT/worker.sqlite" "$TOPIC"
run_sqlite_peer peer_load "$OUT/peer.sqlite" "$TOPIC"
row_bytes worker "$OUT/worker.sqlite" observation
row_bytes peer "$OUT/peer.sqlite" peer_observation
log "exact replay: worker, then peer"
run_workers worker_replay 1 "sqlite:$OUT/worker.sqlite" "$TOPIC"
run_sqlite_peer peer_replay "$OUT/peer.sqlite" "$TOPIC"
put load_at_end "$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')"
for phase in load replay; do
    put "ratio_${phase}" "$(calc "$(get "worker_${phase}_steady_rate") / $(get "peer_${phase}_steady_rate")" 2)"
    put "cpu_ratio_${phase}" "$(calc "$(get "worker_${phase}_cpu_us") / $(get "peer_${phase}_cpu_us")" 2)"
done
