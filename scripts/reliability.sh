#!/usr/bin/env bash
# Runs the reliability scenario suite (Tests/WorkerTests/Reliability) and writes its results table.
#   scripts/reliability.sh [--full] [--scenario NAME]... [--repeat N] [--kill-points LIST] [--report PATH]
#   --full         every scenario (DVP_RELIABILITY=full); default: the quick subset
#   --scenario     only this scenario, by its test function name (e.g. allBrokersDown, coordinatorDown,
#                  rollingRestart, killNine, killAtCrashPoint); repeatable; implies --full
#   --repeat N     run the selection N times in a row (each run is a row; a summary per scenario heads the table)
#   --kill-points  which kill -9 points killNine runs (comma-separated: in-flight,after-batch)
#   --report       output file (default docs/reliability/scenarios.md)
# Uses DVP_POSTGRES_URL when set, else starts a throwaway PostgreSQL (scripts/pg-test-cluster.sh) for the run.
# Exits non-zero when any run failed; every run still happens.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

mode=quick
report="$root/docs/reliability/scenarios.md"
repeat=1
scenarios=()
while [ $# -gt 0 ]; do
    case "$1" in
        --full) mode=full ;;
        --scenario) [ $# -ge 2 ] || usage; scenarios+=("$2"); mode=full; shift ;;
        --repeat) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || usage; repeat=$2; shift ;;
        --kill-points) [ $# -ge 2 ] || usage; export DVP_KILL_POINTS=$2; shift ;;
        --report) [ $# -ge 2 ] || usage; report=$(realpath -m "$2"); shift ;;
        *) usage ;;
    esac
    shift
done

if [ -z "${DVP_POSTGRES_URL:-}" ]; then
    # Outside the checkout: the server runs as the `postgres` user, who may not be able to enter the clone.
    pgdir=$(mktemp -d /var/tmp/dvp-pg-reliability.XXXXXX)
    DVP_POSTGRES_URL=$(scripts/pg-test-cluster.sh start "$pgdir" auto)
    export DVP_POSTGRES_URL
    trap 'scripts/pg-test-cluster.sh stop "$pgdir" >/dev/null 2>&1 || true; rm -rf "$pgdir"' EXIT
fi

swift build --build-tests 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' >&2 || true
DVP_BIN_DIR=$(swift build --show-bin-path)
export DVP_BIN_DIR

filter='WorkerTests.ReliabilityTests'
if ((${#scenarios[@]})); then
    filter="WorkerTests.ReliabilityTests/($(IFS='|'; echo "${scenarios[*]}"))\\("
fi

mkdir -p "$(dirname "$report")"
rm -f "$report" "$report.rows.jsonl"
export DVP_RELIABILITY_REPORT="$report"
[ "$mode" = full ] && export DVP_RELIABILITY=full
started=$(date +%s)
failed_runs=0
for ((i = 1; i <= repeat; i++)); do
    ((repeat > 1)) && echo "==> run $i of $repeat" >&2
    swift test --skip-build --filter "$filter" || failed_runs=$((failed_runs + 1))
done
elapsed=$(($(date +%s) - started))
rm -f "$report.rows.jsonl"
if [ -f "$report" ]; then
    printf '\nWall time of the run (%s mode%s): %d s (%s).\n' "$mode" \
        "$( ((repeat > 1 || ${#scenarios[@]} > 0)) && echo ", $repeat× ${scenarios[*]:-all}")" "$elapsed" \
        "$(date -u +%Y-%m-%d)" >>"$report"
    echo "results: $report" >&2
else
    echo "no scenario ran (filter: $filter)" >&2
    exit 1
fi
echo "runs with a failure: $failed_runs of $repeat" >&2
[ "$failed_runs" -eq 0 ]
