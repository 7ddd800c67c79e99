#!/usr/bin/env bash
# SIGTERM stress loop for the worker's shutdown path (the "no abort on close" check).
#   scripts/sigterm-loop.sh [--cycles N] [--min-ms MS] [--max-ms MS] [--session-ms MS] [--rate N] [--broker-faults]
#                           [--bin DIR] [--keep DIR] [--worker-arg ARG]...
#   --cycles N       workers to start and SIGTERM (default 200)
#   --min-ms/--max-ms  length of a cycle, drawn uniformly (default 1000..4000); a worker lives two cycles
#   --session-ms MS  the workers' session.timeout.ms (default 3000; heartbeat a third of it). The mock completes a
#                    rebalance session - 1 s after a join, so with 3000 the group settles within a 1-4 s cycle
#   --rate N         events per second the background producer generates (default 300)
#   --broker-faults  every 10th cycle, take a random broker down for 1-3 s (devbroker control `down`/`up`)
#   --bin DIR        directory of devbroker/producer/worker (default: `swift build --show-bin-path`, built first)
#   --keep DIR       keep the logs (and a backtrace of each abnormal exit) in a new DIR/run.XXXXXX
#   --worker-arg ARG extra worker argument (repeatable), e.g. --worker-arg -X --worker-arg debug=cgrp
# One devbroker (3 brokers, 12 partitions) and a producer generating load run throughout. Two workers alternate:
# cycle i starts worker i, which joins worker i-1 in the group, waits 1-4 s, then SIGTERMs worker i-1. So two
# members are in the group most of the time, every stop overlaps a rebalance (a member joining or just joined), and
# each worker lives 2-8 s, so some are stopped while consuming and others during their first join (the window of
# librdkafka 2.0.2's cooperative-sticky abort, #4312). Each worker's termination (exit code or signal) is recorded.
# Prints `cycles=N exit0=… aborts(SIGABRT)=… other=…` and exits 1 if any worker did not exit 0.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

cycles=200 min_ms=1000 max_ms=4000 session_ms=3000 rate=300 faults=0 bin="" keep="" extra_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --cycles) cycles=$2; shift ;;
        --min-ms) min_ms=$2; shift ;;
        --max-ms) max_ms=$2; shift ;;
        --session-ms) session_ms=$2; shift ;;
        --rate) rate=$2; shift ;;
        --broker-faults) faults=1 ;;
        --bin) bin=$(realpath "$2"); shift ;;
        --keep) keep=$(realpath -m "$2"); shift ;;
        --worker-arg) extra_args+=("$2"); shift ;;
        *) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
    shift
done
if [ -z "$bin" ]; then
    swift build 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' >&2 || true
    bin=$(swift build --show-bin-path)
fi
if [ -n "$keep" ]; then
    mkdir -p "$keep"
    run=$(mktemp -d "$keep/run.XXXXXX")
else
    run=$(mktemp -d /tmp/dvp-sigterm-loop.XXXXXX)
fi
ulimit -c unlimited 2>/dev/null || true # with core_pattern `core`, a core lands in the worker's own directory

broker_pid="" producer_pid="" fifo_fd=""
declare -A worker_pid=() worker_waiter=()   # by cycle, until reaped
cleanup() {
    for c in "${!worker_pid[@]}"; do kill -KILL "${worker_pid[$c]}" 2>/dev/null || true; done
    [ -n "$producer_pid" ] && kill "$producer_pid" 2>/dev/null || true
    [ -n "$fifo_fd" ] && exec 7>&- || true
    [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    [ -z "$keep" ] && rm -rf "$run" || true
}
trap cleanup EXIT

# MARK: - Broker and load

"$bin/devbroker" --brokers 3 --topic daily-values:12 --topic daily-values.dlq:3 \
    --bootstrap-file "$run/bootstrap" --control "$run/control" >"$run/devbroker.log" 2>&1 &
broker_pid=$!
for _ in $(seq 100); do [ -s "$run/bootstrap" ] && [ -p "$run/control" ] && break; sleep 0.1; done
[ -s "$run/bootstrap" ] || { cat "$run/devbroker.log" >&2; echo "devbroker did not start" >&2; exit 1; }
exec 7>"$run/control"; fifo_fd=7
control() { echo "$*" >&7; }

start_producer() {
    "$bin/producer" generate --brokers-file "$run/bootstrap" --patients 100000 --days 60 --seed $RANDOM \
        --rate "$rate" >>"$run/producer.log" 2>&1 &
    producer_pid=$!
}
start_producer

# MARK: - Workers

worker_args=(--brokers-file "$run/bootstrap" --http-port 0 --log-level warning --drain-timeout 10
    -X "session.timeout.ms=$session_ms" -X "heartbeat.interval.ms=$((session_ms / 3))"
    ${extra_args[@]+"${extra_args[@]}"})
exit0=0 aborts=0 other=0 hung=0
declare -A reasons=()

describe() {   # exit status (128 + N: killed by signal N) -> reason
    local rc=$1
    if [ "$rc" -gt 128 ]; then
        case $((rc - 128)) in
            6) echo "SIGABRT" ;;
            9) echo "SIGKILL" ;;
            11) echo "SIGSEGV" ;;
            *) echo "signal$((rc - 128))" ;;
        esac
    else echo "exit$rc"; fi
}

# Starts worker $1. A subshell waits for it and writes its status (so the shell's own "Aborted" notices stay out of
# the output); the worker runs in its own directory, where a core file lands.
start_worker() {
    local cycle=$1 dir=$run/w$1
    mkdir -p "$dir"
    (
        cd "$dir" || exit 1
        "$bin/worker" "${worker_args[@]}" --store "sqlite:$dir/observations.sqlite" --worker-id "loop-$cycle" \
            >"$dir/stdout.log" 2>"$dir/worker.log" &
        echo $! >"$dir/pid"
        rc=0
        wait $! || rc=$?
        echo "$rc" >"$dir/status"
    ) 2>/dev/null &
    worker_waiter[$cycle]=$!
    for _ in $(seq 100); do [ -s "$dir/pid" ] && break; sleep 0.01; done
    worker_pid[$cycle]=$(cat "$dir/pid")
    date +%s%3N >"$dir/started_ms"
}

stop_worker() {
    local cycle=$1 dir=$run/w$1
    kill -TERM "${worker_pid[$cycle]}" 2>/dev/null || true
    echo $(($(date +%s%3N) - $(cat "$dir/started_ms"))) >"$dir/lifetime_ms"
    date +%s >"$dir/stopped_s"
}

# Records worker $1 once it exited; with $2 = wait, waits for it (30 s after its SIGTERM at most: its own deadline is
# 2 x drain timeout = 20 s), then SIGKILLs it.
reap() {
    local cycle=$1 pid=${worker_pid[$1]:-} rc reason dir=$run/w$1
    [ -n "$pid" ] || return 0
    if [ ! -s "$dir/status" ]; then
        [ "${2:-}" = wait ] || [ $(($(date +%s) - $(cat "$dir/stopped_s"))) -ge 30 ] || return 0
        while [ ! -s "$dir/status" ] && [ $(($(date +%s) - $(cat "$dir/stopped_s"))) -lt 30 ]; do sleep 0.1; done
    fi
    if [ ! -s "$dir/status" ]; then
        kill -KILL "$pid" 2>/dev/null || true
        hung=$((hung + 1))
    fi
    wait "${worker_waiter[$cycle]}" 2>/dev/null || true
    rc=$(cat "$dir/status")
    reason=$(describe "$rc")
    reasons[$reason]=$((${reasons[$reason]:-0} + 1))
    case $reason in
        exit0) exit0=$((exit0 + 1)); [ -n "$keep" ] || rm -rf "$dir" ;;
        SIGABRT) aborts=$((aborts + 1)) ;;
        *) other=$((other + 1)) ;;
    esac
    if [ "$reason" != exit0 ]; then
        local core
        core=$(ls "$dir"/core* 2>/dev/null | head -1 || true)
        if [ -n "$core" ] && command -v gdb >/dev/null; then
            gdb -batch -ex "thread apply all bt 12" "$bin/worker" "$core" >"$dir/backtrace.txt" 2>/dev/null || true
            rm -f "$core"
        fi
        printf 'cycle %d: %s after %s ms%s\n' "$cycle" "$reason" "$(cat "$dir/lifetime_ms")" \
            "$(grep -m1 -E 'Assertion|assert' "$dir/worker.log" 2>/dev/null | sed 's/^/: /' || true)" >&2
    fi
    unset "worker_pid[$cycle]" "worker_waiter[$cycle]"
}

stopped_workers() {   # cycles of workers SIGTERMed but not reaped yet
    local c
    for c in "${!worker_pid[@]}"; do [ -s "$run/w$c/stopped_s" ] && echo "$c"; done
    return 0
}

pause_cycle() {
    local ms=$((min_ms + (RANDOM * 32768 + RANDOM) % (max_ms - min_ms + 1)))
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
}

started=$(date +%s)
for ((i = 1; i <= cycles; i++)); do
    for c in $(stopped_workers); do reap "$c"; done
    kill -0 "$producer_pid" 2>/dev/null || start_producer
    start_worker "$i"
    if [ "$faults" = 1 ] && [ $((i % 10)) = 0 ]; then
        broker=$((1 + RANDOM % 3))
        control "down $broker"
        sleep "$((1 + RANDOM % 3))"
        control "up $broker"
    fi
    pause_cycle
    [ "$i" -gt 1 ] && stop_worker $((i - 1))
    if [ $((i % 20)) = 0 ]; then
        echo "… $i/$cycles cycles, $(($(date +%s) - started)) s: exit0=$exit0 aborts=$aborts other=$other" >&2
    fi
done
pause_cycle
stop_worker "$cycles"
for c in $(stopped_workers); do reap "$c" wait; done

summary="cycles=$cycles exit0=$exit0 aborts(SIGABRT)=$aborts other=$other"
for r in "${!reasons[@]}"; do [ "$r" = exit0 ] || [ "$r" = SIGABRT ] || summary+=" $r=${reasons[$r]}"; done
[ "$hung" -gt 0 ] && summary+=" (killed after 30 s: $hung)"
echo "$summary elapsed=$(($(date +%s) - started))s"
[ -n "$keep" ] && echo "logs: $run" >&2
[ "$aborts" = 0 ] && [ "$other" = 0 ]
