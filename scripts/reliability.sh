#!/usr/bin/env bash
# Runs the reliability scenario suite (Tests/WorkerTests/Reliability) and writes its results table.
#   scripts/reliability.sh [--full] [--report PATH]
#   --full     every scenario (DVP_RELIABILITY=full); default: the quick subset
#   --report   output file (default docs/RELIABILITY.md)
# Uses DVP_POSTGRES_URL when set, else starts a throwaway PostgreSQL (scripts/pg-test-cluster.sh) for the run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

mode=quick
report="$root/docs/RELIABILITY.md"
while [ $# -gt 0 ]; do
    case "$1" in
        --full) mode=full ;;
        --report) report=$(realpath -m "$2"); shift ;;
        *) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
    shift
done

if [ -z "${DVP_POSTGRES_URL:-}" ]; then
    # Outside the checkout: the server runs as the `postgres` user, who may not be able to enter the clone.
    pgdir=$(mktemp -d /var/tmp/dvp-pg-reliability.XXXXXX)
    DVP_POSTGRES_URL=$(scripts/pg-test-cluster.sh start "$pgdir" "$((20000 + RANDOM % 20000))")
    export DVP_POSTGRES_URL
    trap 'scripts/pg-test-cluster.sh stop "$pgdir" >/dev/null 2>&1 || true; rm -rf "$pgdir"' EXIT
fi

swift build --build-tests 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' >&2 || true
DVP_BIN_DIR=$(swift build --show-bin-path)
export DVP_BIN_DIR

mkdir -p "$(dirname "$report")"
rm -f "$report.rows.jsonl"
export DVP_RELIABILITY_REPORT="$report"
[ "$mode" = full ] && export DVP_RELIABILITY=full
started=$(date +%s)
status=0
swift test --skip-build --filter 'WorkerTests.ReliabilityTests' || status=$?
elapsed=$(($(date +%s) - started))
rm -f "$report.rows.jsonl"
if [ -f "$report" ]; then
    printf '\nWall time of the run (%s mode): %d s (%s).\n' "$mode" "$elapsed" "$(date -u +%Y-%m-%d)" >>"$report"
    echo "results: $report" >&2
fi
exit $status
