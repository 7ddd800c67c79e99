#!/usr/bin/env bash
# Benchmarks of the daily-values pipeline against the raw limits of the same machine, in one run.
#
#   bench/run.sh [--events N] [--partitions P] [--pg-port PORT] [--no-build] [--bin DIR] [--only sqlite]
#
#   --events N        events in the data set (default 1000000; `--events 100000` is the quick mode)
#   --partitions P    partitions of each benchmark topic (default 32; the librdkafka 2.0.2 mock keeps at most
#                     5 MiB per partition, so 1 M lz4-compressed events need at least 24)
#   --pg-port PORT    port of the throwaway PostgreSQL (default 55461)
#   --no-build        use the existing release build
#   --bin DIR         use worker, producer, devbroker and storectl from DIR (implies --no-build)
#   --only sqlite     the SQLite runs, raw SQLite limits and SQLite peer only (no PostgreSQL): figures go to
#                     bench/out/results-sqlite.txt and the log; bench/REPORT.md is not rewritten
#
# Sets up everything itself: a release build, `devbroker` (the librdkafka mock cluster over TCP), a throwaway
# PostgreSQL 15 (scripts/pg-test-cluster.sh), the generated data sets (`producer generate --out`), published once
# and checked to be complete in the topic before anything is timed. Then it measures the raw limits (kcat consume,
# psql COPY + merge upserts), the worker end to end (PostgreSQL with 1 and 2 processes, SQLite; first load,
# exact replay, higher-version replace; peak RSS; produce-to-durable delay at half the peak rate) and the Python
# peers of ../shared/bench/peer/ on the same topics (PostgreSQL and SQLite), and writes bench/REPORT.md. Scratch data, logs and the PostgreSQL cluster live in bench/out/ (gitignored).
set -euo pipefail

EVENTS=1000000
PARTITIONS=32
PG_PORT=55461
BUILD=1
ONLY=""
BIN_DIR=""
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --events) EVENTS=${2:?}; shift 2 ;;
        --partitions) PARTITIONS=${2:?}; shift 2 ;;
        --pg-port) PG_PORT=${2:?}; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --only) ONLY=${2:?}; shift 2 ;;
        --bin) BIN_DIR=${2:?}; BUILD=0; shift 2 ;;
        -h|--help) usage ;;
        *) echo "error: unknown option '$1'" >&2; usage ;;
    esac
done
[[ "$EVENTS" =~ ^[0-9]+$ && "$EVENTS" -ge 1000 ]] || { echo "error: --events must be a number >= 1000" >&2; exit 2; }
[[ "$ONLY" =~ ^(|sqlite)$ ]] || { echo "error: --only takes sqlite" >&2; exit 2; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/scripts/install-deps.sh"   # librdkafka, libpq, PostgreSQL 15, kcat, sqlite3, curl, perl
OUT=$ROOT/bench/out
REPORT=$ROOT/bench/REPORT.md
mkdir -p "$OUT"
chmod 755 "$OUT"
RESULTS=$OUT/results${ONLY:+-$ONLY}.txt
: >"$RESULTS"

PG_BIN_DIR=/usr/lib/postgresql/15/bin
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
# shellcheck source=bench/peer.sh
source "$ROOT/bench/peer.sh"
# shellcheck source=bench/report.sh
source "$ROOT/bench/report.sh"

# MARK: - Machine

LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
put events "$EVENTS"
put partitions "$PARTITIONS"
put load_at_start "$(echo "$LOAD_AT_START" | tr ' ' '/')"

# MARK: - Build

cd "$ROOT"
if [ "$BUILD" -eq 1 ]; then
    log "release build"
    swift build -c release 2>&1 | tail -n 3 >&2
fi
BIN=${BIN_DIR:-$(swift build -c release --show-bin-path)}
for tool in worker producer devbroker storectl; do
    [ -x "$BIN/$tool" ] || { echo "error: $BIN/$tool missing; run without --no-build" >&2; exit 1; }
done

# MARK: - Services

PIDS=()
PG_DIR=$OUT/pg
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [ -f "$PG_DIR/PG_VERSION" ]; then "$ROOT/scripts/pg-test-cluster.sh" stop "$PG_DIR" 2>/dev/null || true; fi
}
trap cleanup EXIT

start_services
[ -z "$ONLY" ] && start_postgres

# MARK: - Data sets

make_data_sets
publish_and_verify

# MARK: - Measurements

measure_sqlite
measure_sqlite_peer
if [ -n "$ONLY" ]; then
    log "SQLite first load $(ratio "$(get sqlite_load_steady_rate)" "$(get raw_sqlite_new_rate)") × raw," \
        "higher versions $(ratio "$(get sqlite_replace_steady_rate)" "$(get raw_sqlite_replace_rate)") × raw;" \
        "against the Python peer on SQLite: first load $(ratio "$(get sqlite_load_steady_rate)" \
        "$(get sqpeer_load_steady_rate)") ×, exact replay $(ratio "$(get sqlite_replay_steady_rate)" \
        "$(get sqpeer_replay_steady_rate)") × ($RESULTS)"
    exit 0
fi
measure_workers_postgres   # first: the raw limits replay the rows its first load stored
measure_raw_postgres
measure_schema_three
measure_peer
measure_latency

write_report
log "wrote $REPORT"
