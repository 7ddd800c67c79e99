#!/usr/bin/env bash
# Load benchmark of the ingest gateway (issue 26 item 8), side by side in one run: `ingest` and the Python peer
# gateway (../shared/bench/peer/peer_gateway.py) driven by the same wrk, and `producer publish`, on the same
# embedded broker and the same events.
#
#   bench/ingest.sh [--rounds R] [--duration S] [--connections C] [--threads T] [--events N] [--partitions P]
#                   [--publish-passes K] [--warmup S] [--report FILE] [--perf] [--no-build] [--bin DIR]
#
#   --rounds R          alternating rounds (default 3): odd rounds gateway, peer, publish; even rounds the reverse
#   --duration S        seconds of each wrk run (default 20)
#   --connections C     wrk connections, the same for both gateways (default 8, as the issue says)
#   --threads T         wrk threads (default 2); must divide C
#   --events N          events in the data set (default 100000, a multiple of 100): N/100 distinct request bodies
#                       of 100 events each, cycled by wrk; `producer publish` sends the same N events
#   --partitions P      partitions of every topic (default 32), the same for all three sides
#   --publish-passes K  `producer publish` is given the data set file K times (default 10: 1 M events with the
#                       default N), so that its timing is not dominated by its start
#   --warmup S          seconds of wrk against each server before it is measured (default 3; not counted)
#   --report FILE       the markdown report (default bench/REPORT-ingest.md)
#   --perf / --no-perf  after the rounds, one more gateway run (not counted) under `perf record -g`, its top
#                       symbols in the report: always / never (default: when a target is not met and perf exists)
#   --no-build          use the existing release build
#   --bin DIR           use ingest, producer and devbroker from DIR (implies --no-build)
#   --gateway-arg A     one more argument for `ingest` (repeatable; e.g. --gateway-arg -X --gateway-arg linger.ms=5):
#                       for trying settings; the report lists them. Default: none, the settings a user gets
#
# One devbroker (the librdkafka mock cluster over TCP, 3 brokers) for the whole run, with a fresh topic per side
# and round. Per gateway run: the server starts on its own topic, answers one curl POST with 202 (checked), gets
# a wrk warm-up, then `wrk -tT -cC -dSs --latency -s bench/ingest-post.lua` (bodies of 100 events cycled from the
# data set, `Authorization: Bearer KEY`, `Content-Type: application/json`; every status counted). Accepted events =
# the growth of the topic's end offsets (kcat -Q) over the measured wrk run, after the topic stopped growing; the
# wrk 2xx count × 100 is checked against it. CPU: /proc/PID/stat utime+stime of the server and of devbroker before
# and after, per accepted event; the gateway's per-thread CPU from /proc/PID/task/*/stat. Scratch data and logs
# live in bench/out/ingest/ (gitignored).
set -euo pipefail

ROUNDS=3
DURATION=20
CONNECTIONS=8
THREADS=2
EVENTS=100000
PARTITIONS=32
PASSES=10
WARMUP=3
PERF=auto
BUILD=1
BIN_DIR=""
GATEWAY_ARGS=()
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPORT=$ROOT/bench/REPORT-ingest.md
COMMAND="bench/ingest.sh${*:+ $*}"
usage() { sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=${2:?}; shift 2 ;;
        --duration) DURATION=${2:?}; shift 2 ;;
        --connections) CONNECTIONS=${2:?}; shift 2 ;;
        --threads) THREADS=${2:?}; shift 2 ;;
        --events) EVENTS=${2:?}; shift 2 ;;
        --partitions) PARTITIONS=${2:?}; shift 2 ;;
        --publish-passes) PASSES=${2:?}; shift 2 ;;
        --warmup) WARMUP=${2:?}; shift 2 ;;
        --report) REPORT=$(realpath -m "${2:?}"); shift 2 ;;
        --perf) PERF=1; shift ;;
        --no-perf) PERF=0; shift ;;
        --no-build) BUILD=0; shift ;;
        --bin) BIN_DIR=${2:?}; BUILD=0; shift 2 ;;
        --gateway-arg) GATEWAY_ARGS+=("${2:?}"); shift 2 ;;
        -h|--help) usage ;;
        *) echo "error: unknown option '$1'" >&2; usage ;;
    esac
done
for n in ROUNDS DURATION CONNECTIONS THREADS EVENTS PARTITIONS PASSES; do
    [[ "${!n}" =~ ^[0-9]+$ && "${!n}" -ge 1 ]] || { echo "error: --${n,,} must be a positive number" >&2; exit 2; }
done
[[ "$WARMUP" =~ ^[0-9]+$ ]] || { echo "error: --warmup must be a number of seconds" >&2; exit 2; }
[ $((EVENTS % 100)) -eq 0 ] || { echo "error: --events must be a multiple of 100" >&2; exit 2; }
[ $((CONNECTIONS % THREADS)) -eq 0 ] || { echo "error: --threads must divide --connections" >&2; exit 2; }

# wrk (the load generator) and the peer's Python packages come with DVP_WITH_BENCH_PEERS=1.
DVP_WITH_BENCH_PEERS=1 "$ROOT/scripts/install-deps.sh"
OUT=$ROOT/bench/out/ingest
mkdir -p "$OUT"
RESULTS=$OUT/results.txt
: >"$RESULTS"
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
# shellcheck source=bench/report.sh
source "$ROOT/bench/report.sh"
PEER=${PEER_GATEWAY:-$ROOT/../shared/bench/peer/peer_gateway.py}
[ -f "$PEER" ] || { echo "error: the peer gateway $PEER is absent" >&2; exit 1; }
/usr/bin/python3 -c 'import fastapi, uvicorn, confluent_kafka' ||
    { echo "error: python3-fastapi, python3-uvicorn or python3-confluent-kafka missing" >&2; exit 1; }
HZ=$(getconf CLK_TCK)

put load_at_start "$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')"
put started "$(date -u '+%Y-%m-%d_%H:%M')"

# MARK: - Build

cd "$ROOT"
if [ "$BUILD" -eq 1 ]; then
    log "release build"
    swift build -c release 2>&1 | tail -n 3 >&2
fi
BIN=${BIN_DIR:-$(swift build -c release --show-bin-path)}
for tool in ingest producer devbroker; do
    [ -x "$BIN/$tool" ] || { echo "error: $BIN/$tool missing; run without --no-build" >&2; exit 1; }
done

# MARK: - Processes

PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# cpu_seconds PID: user+sys CPU seconds of a live process (its threads included).
cpu_seconds() { awk -v hz="$HZ" '{ sub(/^.*\) /, ""); printf "%.3f", ($12 + $13) / hz }' "/proc/$1/stat"; }
# busy_seconds: CPU seconds every core of the machine spent busy so far (/proc/stat: all but idle and iowait).
busy_seconds() { awk -v hz="$HZ" '$1 == "cpu" { printf "%.3f", ($2 + $3 + $4 + $7 + $8 + $9) / hz }' /proc/stat; }
# thread_cpu PID: "tid comm seconds" per thread of PID.
thread_cpu() {
    local t
    for t in /proc/"$1"/task/*; do
        awk -v hz="$HZ" -v tid="${t##*/}" '{ c = $0; sub(/^[^(]*\(/, "", c); sub(/\) .*$/, "", c); gsub(/ /, "_", c)
            sub(/^.*\) /, ""); printf "%s %s %.3f\n", tid, c, ($12 + $13) / hz }' "$t/stat" 2>/dev/null || true
    done
}
# end_offsets TOPIC: the sum of the topic's end offsets (every partition).
end_offsets() {
    local args=() p
    for p in $(seq 0 $((PARTITIONS - 1))); do args+=(-t "$1:$p:-1"); done
    kcat -Q -b "$BROKERS" "${args[@]}" | awk '$3 == "offset" { s += $4 } END { print s + 0 }'
}
# settled_offsets TOPIC: end_offsets once two readings 0.5 s apart agree (at most 15 s).
settled_offsets() {
    local a b
    a=$(end_offsets "$1")
    for _ in $(seq 1 30); do
        sleep 0.5
        b=$(end_offsets "$1")
        [ "$a" = "$b" ] && { echo "$b"; return; }
        a=$b
    done
    echo "$b"
}

start_broker() {
    local args=() r
    for r in $(seq 1 "$ROUNDS"); do
        args+=(--topic "ingest-gw-$r:$PARTITIONS" --topic "ingest-peer-$r:$PARTITIONS" --topic "ingest-pub-$r:$PARTITIONS")
    done
    args+=(--topic "ingest-warm:$PARTITIONS" --topic "ingest-perf:$PARTITIONS")
    rm -f "$OUT/bootstrap"
    "$BIN/devbroker" --brokers 3 "${args[@]}" --bootstrap-file "$OUT/bootstrap" >"$OUT/devbroker.log" 2>&1 &
    BROKER_PID=$!
    PIDS+=("$BROKER_PID")
    for _ in $(seq 1 100); do [ -s "$OUT/bootstrap" ] && break; sleep 0.1; done
    [ -s "$OUT/bootstrap" ] || { echo "error: devbroker did not start (see $OUT/devbroker.log)" >&2; exit 1; }
    BROKERS=$(head -n 1 "$OUT/bootstrap")
    log "devbroker at $BROKERS (3 brokers, $PARTITIONS partitions per topic)"
}

# The API key both gateways check: the gateway reads its SHA-256 from a key file (docs/INGEST-AUTH.md), every
# patient allowed; the peer gets the key itself.
make_key() {
    openssl rand -hex 32 >"$OUT/key"
    chmod 600 "$OUT/key"
    printf 'sha256:%s  tenant=bench  patients=*  access=all-patients\n' "$(tr -d '\n' <"$OUT/key" | sha256sum | cut -d' ' -f1)" \
        >"$OUT/api-keys"
    chmod 600 "$OUT/api-keys"
}

# start_gateway TOPIC LOG: `ingest` with its defaults (the ones a user gets), on free ports; sets SERVER_PID, URL.
start_gateway() {
    "$BIN/ingest" --brokers-file "$OUT/bootstrap" --api-keys "$OUT/api-keys" --topic "$1" \
        --http-address 127.0.0.1 --http-port 0 --admin-address 127.0.0.1 --admin-port 0 "${GATEWAY_ARGS[@]}" 2>"$2" &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    local port=""
    for _ in $(seq 1 200); do
        port=$(sed -n 's/.*"ingest gateway listening".*"port":\([0-9]*\).*/\1/p' "$2" | head -n 1)
        [ -n "$port" ] && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    [ -n "$port" ] || { echo "error: ingest did not start (see $2)" >&2; exit 1; }
    URL=http://127.0.0.1:$port
    local admin
    admin=$(sed -n 's/.*"ingest gateway listening".*"admin_port":\([0-9]*\).*/\1/p' "$2" | head -n 1)
    wait_http "http://127.0.0.1:$admin/readyz" "$2"
}

# start_peer TOPIC LOG: the peer gateway as its README runs it, on a free port; sets SERVER_PID, URL.
start_peer() {
    local port
    port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    /usr/bin/python3 "$PEER" --bootstrap "$BROKERS" --port "$port" --api-key "$(cat "$OUT/key")" --topic "$1" \
        >"$2" 2>&1 &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    URL=http://127.0.0.1:$port
    wait_http "$URL/healthz" "$2"
}

wait_http() {
    for _ in $(seq 1 200); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$1" 2>/dev/null)" = 200 ] && return 0
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "error: $1 never answered 200 (see $2)" >&2
    exit 1
}

stop_server() {
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
}

# MARK: - Data

make_data_set() {
    local start_day per_patient patients
    start_day=$(date -u -d "-31 days" +%F)
    per_patient=$("$BIN/producer" generate --patients 200 --days 30 --start-day "$start_day" --seed 11 --out - | wc -l)
    patients=$(calc "int($EVENTS * 200 / $per_patient * 1.05) + 1")
    log "generating $EVENTS events ($patients patients x 30 days, every metric profile, no invalid ones)"
    "$BIN/producer" generate --patients "$patients" --days 30 --start-day "$start_day" --seed 11 \
        --out "$OUT/full.jsonl" 2>/dev/null
    head -n "$EVENTS" "$OUT/full.jsonl" >"$OUT/set.jsonl"
    rm -f "$OUT/full.jsonl"
    [ "$(wc -l <"$OUT/set.jsonl")" -eq "$EVENTS" ] || { echo "error: set.jsonl is short" >&2; exit 1; }
    # One request body per line: a JSON array of 100 consecutive events of the set.
    awk '{ printf "%s%s", (NR % 100 == 1 ? "[" : ","), $0 } NR % 100 == 0 { print "]" }' "$OUT/set.jsonl" \
        >"$OUT/bodies.txt"
    head -n 1 "$OUT/bodies.txt" >"$OUT/body1.json"
    put event_bytes_avg "$(calc "$(wc -c <"$OUT/set.jsonl") / $EVENTS")"
    put body_bytes_avg "$(calc "$(wc -c <"$OUT/bodies.txt") / ($EVENTS / 100)")"
    put metrics_in_set "$(grep -o '"metric":"[a-z_]*"' "$OUT/set.jsonl" | sort -u | wc -l)"
}

# MARK: - Measurements

# run_wrk SECONDS OUTFILE: wrk against $URL with the bench's connections, threads and bodies; wrk's CPU to OUTFILE.time.
run_wrk() {
    /usr/bin/time -f '%U %S' -o "$2.time" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$1"s --latency \
        -s "$ROOT/bench/ingest-post.lua" "$URL" -- "$OUT/bodies.txt" "$OUT/key" "$THREADS" >"$2" 2>&1 ||
        { echo "error: wrk failed (see $2)" >&2; exit 1; }
}
wrk_field() { sed -n "s/.*wrk_result.* $1=\([0-9.]*\).*/\1/p" "$2"; }

# measure_http SIDE ROUND: one measured wrk run against a fresh server of SIDE (gw or peer) on its own topic.
measure_http() {
    local side=$1 r=$2 topic="ingest-$1-$2" label="r$2_$1" first status
    log "round $r: $side"
    if [ "$side" = gw ]; then start_gateway "$topic" "$OUT/$label.log"; else start_peer "$topic" "$OUT/$label.log"; fi
    status=$(curl -s -o "$OUT/$label.first" -w '%{http_code}' -H "Authorization: Bearer $(cat "$OUT/key")" \
        -H 'Content-Type: application/json' --data-binary @"$OUT/body1.json" "$URL/v1/daily-values")
    [ "$status" = 202 ] || { echo "error: $side answered $status to the first body ($OUT/$label.first)" >&2; exit 1; }
    [ "$WARMUP" -gt 0 ] && run_wrk "$WARMUP" "$OUT/$label.warmup"
    local o0 c0 b0 busy0 o1 c1 b1 busy1
    o0=$(settled_offsets "$topic")
    thread_cpu "$SERVER_PID" >"$OUT/$label.threads0"
    c0=$(cpu_seconds "$SERVER_PID")
    b0=$(cpu_seconds "$BROKER_PID")
    busy0=$(busy_seconds)
    run_wrk "$DURATION" "$OUT/$label.wrk"
    o1=$(settled_offsets "$topic")
    c1=$(cpu_seconds "$SERVER_PID")
    b1=$(cpu_seconds "$BROKER_PID")
    busy1=$(busy_seconds)
    thread_cpu "$SERVER_PID" >"$OUT/$label.threads1"
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "error: $side died during the run (see $OUT/$label.log)" >&2; exit 1; }
    stop_server

    local wrk=$OUT/$label.wrk events seconds ok other wu ws
    grep -q wrk_result "$wrk" || { echo "error: no wrk_result line in $wrk" >&2; exit 1; }
    events=$((o1 - o0))
    seconds=$(calc "$(wrk_field duration_us "$wrk") / 1e6" 3)
    ok=$(awk '$1 == "wrk_status" && $2 >= 200 && $2 < 300 { s += $3 } END { print s + 0 }' "$wrk")
    put "${label}_events" "$events"
    put "${label}_seconds" "$seconds"
    put "${label}_rate" "$(calc "$events / $seconds")"
    put "${label}_requests" "$(wrk_field requests "$wrk")"
    put "${label}_req_rate" "$(calc "$(wrk_field requests "$wrk") / $seconds")"
    put "${label}_2xx" "$ok"
    put "${label}_202" "$(awk '$1 == "wrk_status" && $2 == 202 { print $3 }' "$wrk" | awk '{ s += $1 } END { print s + 0 }')"
    put "${label}_non2xx" "$(awk '$1 == "wrk_status" && ($2 < 200 || $2 >= 300) { s += $3 } END { print s + 0 }' "$wrk")"
    put "${label}_statuses" "$(awk '$1 == "wrk_status" { printf "%s%s:%s", (n++ ? "," : ""), $2, $3 }' "$wrk")"
    put "${label}_socket_errors" "$(for f in err_connect err_read err_write err_timeout; do wrk_field "$f" "$wrk"; done |
        awk '{ s += $1 } END { print s + 0 }')"
    put "${label}_p50_ms" "$(calc "$(wrk_field p50_us "$wrk") / 1000" 2)"
    put "${label}_p90_ms" "$(calc "$(wrk_field p90_us "$wrk") / 1000" 2)"
    put "${label}_p99_ms" "$(calc "$(wrk_field p99_us "$wrk") / 1000" 2)"
    put "${label}_max_ms" "$(calc "$(wrk_field max_us "$wrk") / 1000" 2)"
    put "${label}_cpu_us" "$(calc "($c1 - $c0) * 1e6 / ($events > 0 ? $events : 1)" 2)"
    put "${label}_cores" "$(calc "($c1 - $c0) / $seconds" 2)"
    put "${label}_broker_cpu_us" "$(calc "($b1 - $b0) * 1e6 / ($events > 0 ? $events : 1)" 2)"
    read -r wu ws <"$wrk.time"
    put "${label}_wrk_cpu_us" "$(calc "($wu + $ws) * 1e6 / ($events > 0 ? $events : 1)" 2)"
    # CPU of every other process of the machine in that window (all busy time − server − broker − wrk), in cores;
    # the window runs to the settled end offsets, a little longer than wrk.
    other=$(calc "(($busy1 - $busy0) - ($c1 - $c0) - ($b1 - $b0) - ($wu + $ws)) / $seconds" 2)
    put "${label}_other_cores" "$other"
    put "${label}_busy_cores" "$(calc "($busy1 - $busy0) / $seconds" 2)"
    # Accepted events in the topic against the client's count: every 2xx answer put its 100 events there before it
    # was sent; at most the requests in flight when wrk stopped (C × 100 events) may add some without an answer.
    local flags=""
    [ "$(get "${label}_non2xx")" -gt 0 ] && flags+="non-2xx answers; "
    [ "$(get "${label}_socket_errors")" -gt 0 ] && flags+="socket errors; "
    [ "$events" -lt $((ok * 100)) ] && flags+="fewer events in the topic than 2xx × 100; "
    [ "$events" -gt $((ok * 100 + CONNECTIONS * 100)) ] && flags+="more events in the topic than 2xx × 100 + in-flight; "
    put "${label}_flags" "$(echo "${flags%; }" | tr ' ' '_')"
    if [ "$side" = gw ]; then thread_profile "$label"; fi
}

# thread_profile LABEL: the gateway's CPU per thread name over the measured run (threads that came and went count
# from 0; the Swift runtime's truncated names as the kernel keeps them).
thread_profile() {
    awk 'NR == FNR { before[$1] = $3; next } { d = $3 - before[$1]; cpu[$2] += d; n[$2]++ }
        END { for (c in cpu) printf "%s %d %.3f\n", c, n[c], cpu[c] }' "$OUT/$1.threads0" "$OUT/$1.threads1" |
        sort -k3,3nr >"$OUT/$1.threads"
}

# measure_publish ROUND: `producer publish` of the data set, K passes, to a fresh topic; its own rate (from its start,
# validation pass included, to the last delivery report) and the wall time around it.
measure_publish() {
    local r=$1 topic="ingest-pub-$1" label="r$1_pub" files=() t0 t1 b0 b1 o0 o1 busy0 busy1 user sys summary
    log "round $r: producer publish"
    for _ in $(seq 1 "$PASSES"); do files+=("$OUT/set.jsonl"); done
    o0=$(end_offsets "$topic")
    b0=$(cpu_seconds "$BROKER_PID")
    busy0=$(busy_seconds)
    t0=$(now)
    /usr/bin/time -f '%U %S' -o "$OUT/$label.time" "$BIN/producer" publish --brokers-file "$OUT/bootstrap" \
        --topic "$topic" "${files[@]}" 2>"$OUT/$label.log" || { echo "error: producer publish failed ($OUT/$label.log)" >&2; exit 1; }
    t1=$(now)
    b1=$(cpu_seconds "$BROKER_PID")
    busy1=$(busy_seconds)
    o1=$(settled_offsets "$topic")
    summary=$(grep '^summary:' "$OUT/$label.log" | tail -n 1)
    read -r user sys <"$OUT/$label.time"
    local events=$((o1 - o0)) expected=$((EVENTS * PASSES))
    put "${label}_events" "$events"
    put "${label}_acknowledged" "$(sed -n 's/.*acknowledged \([0-9]*\).*/\1/p' <<<"$summary")"
    put "${label}_rate" "$(sed -n 's/.* \([0-9,]*\) events\/s.*/\1/p' <<<"$summary" | tr -d ,)"
    put "${label}_reported_seconds" "$(sed -n 's/.*, \([0-9.]*\) s,.*/\1/p' <<<"$summary")"
    put "${label}_wall_rate" "$(calc "$expected / ($t1 - $t0)")"
    put "${label}_seconds" "$(calc "$t1 - $t0" 2)"
    put "${label}_cpu_us" "$(calc "($user + $sys) * 1e6 / $expected" 2)"
    put "${label}_broker_cpu_us" "$(calc "($b1 - $b0) * 1e6 / $expected" 2)"
    put "${label}_other_cores" "$(calc "(($busy1 - $busy0) - ($user + $sys) - ($b1 - $b0)) / ($t1 - $t0)" 2)"
    put "${label}_busy_cores" "$(calc "($busy1 - $busy0) / ($t1 - $t0)" 2)"
    local flags=""
    [ "$events" -ne "$expected" ] && flags="topic grew by $events, not $expected"
    put "${label}_flags" "$(echo "$flags" | tr ' ' '_')"
}

# perf_profile: one more gateway run, not counted, under `perf record -g`; top symbols to $OUT/perf.txt.
perf_profile() {
    command -v perf >/dev/null || { log "perf not installed: no profile"; return 0; }
    log "profile: gateway under perf record"
    start_gateway ingest-perf "$OUT/perf.log"
    run_wrk 2 "$OUT/perf.warmup"
    perf record -F 499 -g -p "$SERVER_PID" -o "$OUT/perf.data" -- sleep "$DURATION" >/dev/null 2>&1 &
    local perf_pid=$!
    run_wrk "$DURATION" "$OUT/perf.wrk"
    wait "$perf_pid" || true
    stop_server
    perf_top comm,dso,symbol 30 >"$OUT/perf.txt"
    perf_top comm 12 >"$OUT/perf-comm.txt"
    perf_top dso 12 >"$OUT/perf-dso.txt"
}
# perf_top SORT N: the first N lines of `perf report --no-children --sort SORT`, Swift symbols demangled.
perf_top() {
    perf report -i "$OUT/perf.data" -g none --no-children --sort "$1" --stdio 2>/dev/null | grep -E '^ +[0-9.]+%' |
        head -n "$2" | sed 's/[[:space:]-]*$//' | { swift demangle --simplified 2>/dev/null || cat; } | cut -c1-160 || true
}

# MARK: - Run

start_broker
make_key
make_data_set
for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then order="gw peer pub"; else order="pub peer gw"; fi
    put "r${r}_order" "$(echo "$order" | tr ' ' ',')"
    for side in $order; do
        case $side in
            gw|peer) measure_http "$side" "$r" ;;
            pub) measure_publish "$r" ;;
        esac
        sleep 1
    done
done
put load_at_end "$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')"

# median KEY-SUFFIX SIDE: the median over the rounds of rN_SIDE_SUFFIX.
median() {
    local r
    for r in $(seq 1 "$ROUNDS"); do get "r${r}_$2_$1"; done | sort -g |
        awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
TARGETS_MET=$(awk -v g="$(median rate gw)" -v p="$(median rate peer)" -v u="$(median rate pub)" \
    -v g99="$(median p99_ms gw)" -v p99="$(median p99_ms peer)" -v gc="$(median cpu_us gw)" -v pc="$(median cpu_us peer)" \
    'BEGIN { print (g >= 4 * p && g99 <= p99 && gc <= 0.3 * pc && g >= 0.5 * u) ? 1 : 0 }')
if [ "$PERF" = 1 ] || { [ "$PERF" = auto ] && [ "$TARGETS_MET" = 0 ]; }; then perf_profile; fi

# MARK: - Report
flag_text() { local f; f=$(get "$1_flags" | tr '_' ' '); echo "${f:-—}"; }

http_row() {
    local l="r$1_$2" name=$3
    echo "| $1 | $name | $(fmt "$(get "${l}_rate")")/s | $(get "${l}_req_rate") | $(get "${l}_p50_ms") | $(get "${l}_p99_ms") |" \
        "$(get "${l}_max_ms") | $(get "${l}_2xx") | $(get "${l}_non2xx") | $(get "${l}_socket_errors") |" \
        "$(get "${l}_cpu_us") µs ($(get "${l}_cores") cores) | $(get "${l}_broker_cpu_us") µs | $(get "${l}_wrk_cpu_us") µs |" \
        "$(get "${l}_busy_cores") / $(get "${l}_other_cores") | $(flag_text "$l") |"
}

write_ingest_report() {
    local gw peer pub gw99 peer99 cpu_model mem commit dirty
    gw=$(median rate gw)
    peer=$(median rate peer)
    pub=$(median rate pub)
    gw99=$(median p99_ms gw)
    peer99=$(median p99_ms peer)
    cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
    mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
    commit=$(git -C "$ROOT" rev-parse --short HEAD)
    dirty=$(git -C "$ROOT" status --porcelain --untracked-files=no | grep -q . && echo " (with uncommitted changes)" || true)
    local flagged="" r s
    for r in $(seq 1 "$ROUNDS"); do
        for s in gw peer pub; do [ -n "$(get "r${r}_${s}_flags")" ] && flagged+="round $r $s, "; done
    done
    flagged=${flagged%, }
    local extra_args=""
    if [ ${#GATEWAY_ARGS[@]} -gt 0 ]; then extra_args="with \`${GATEWAY_ARGS[*]}\` added, "; fi
    local note=""
    [ -n "$flagged" ] && note=" — flagged runs: $flagged (see the tables)"
    local rate_ok p99_ok pub_ok cpu_ok
    rate_ok=$(ge "$gw" "$(calc "4 * $peer" 2)")
    cpu_ok=$(ge "$(calc "0.3 * $(median cpu_us peer)" 2)" "$(median cpu_us gw)")
    p99_ok=$(ge "$peer99" "$gw99")
    pub_ok=$(ge "$gw" "$(calc "0.5 * $pub" 2)")
    {
        cat <<EOF
# Ingest gateway load benchmark

Generated by \`$COMMAND\` on $(date -u '+%Y-%m-%d %H:%M UTC') at commit \`$commit\`$dirty. The three sides ran
in **this one run**, on the same embedded broker, the same events and the same client settings; every ratio below
compares figures of this run.

## Machine
- \`nproc\`: $(nproc); CPU: $cpu_model; memory: $mem
- **anything else running?** $(other_max=$(for r in $(seq 1 "$ROUNDS"); do for s in gw peer pub; do get "r${r}_${s}_other_cores"; done; done |
    sort -g | tail -n 1); if [ "$(ge "$other_max" 0.1)" = 1 ]; then
    echo "yes: other processes used up to $other_max cores during the measurements, so these figures are lower than an idle machine's (the ratios still compare sides of this run)"
    else echo "no: other processes used at most $other_max cores during the measurements"; fi)
- load average (1/5/15 min) at start: $(get load_at_start | tr '/' ' '); at the end: $(get load_at_end | tr '/' ' ')
- other processes during each measurement: the "machine busy / other" column below — all busy CPU time of the
  machine (\`/proc/stat\`) in cores, and what is left of it after the server's, the broker's and the client's
  (wrk, or nothing for \`producer publish\`, whose CPU is its own); "other" above ~0.1 means other jobs shared the
  cores, "busy" near $(nproc) means the machine had no CPU to spare
- $(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release), kernel $(uname -r); $(swift --version 2>/dev/null | head -n 1)
- librdkafka $(dpkg-query -W -f '${Version}' librdkafka1 2>/dev/null) (the mock cluster of \`devbroker\`, 3 brokers, $PARTITIONS partitions
  per topic, a fresh topic per side and round); $(wrk -v 2>&1 | head -n 1 | cut -d' ' -f1-2)
- the peer: Python $(/usr/bin/python3 -c 'import sys; print(sys.version.split()[0])'), FastAPI $(/usr/bin/python3 -c 'import fastapi; print(fastapi.__version__)'),
  uvicorn $(/usr/bin/python3 -c 'import uvicorn; print(uvicorn.__version__)'), confluent-kafka $(/usr/bin/python3 -c 'import confluent_kafka; print(confluent_kafka.version()[0])') (Debian packages)

## What ran
- **Data set:** $EVENTS DailyValue events from \`producer generate --seed 11\` ($(get metrics_in_set) metrics, 30 days, no
  invalid events, ~$(get event_bytes_avg) bytes each), cut into $((EVENTS / 100)) distinct request bodies of 100
  consecutive events (JSON arrays, ~$(get body_bytes_avg) bytes each).
- **Client, the same for both gateways:** \`wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s --latency -s bench/ingest-post.lua\`:
  POST /v1/daily-values with \`Content-Type: application/json\` and \`Authorization: Bearer KEY\`; each thread
  cycles through every body (from its own start in the cycle), each request formatted once up front; every answer's
  status is counted. A ${WARMUP} s wrk warm-up precedes each measured run (not counted); before it, one curl POST
  must answer 202.
- **Our gateway:** \`ingest --brokers-file … --api-keys FILE --topic T --http-address 127.0.0.1 --http-port 0\`,
  ${extra_args}every other setting at the default a user gets: an API key file (SHA-256 of the key,
  \`patients=* access=all-patients\`), HTTP threads = cores ($(nproc)), at most 256 concurrent requests, HTTP/1.1
  keep-alive (up to 1000 requests a connection), producer \`acks=all\`, idempotent, lz4, \`linger.ms\` 2 (the
  gateway's built-in default; \`-X\` overrides it).
- **The peer:** \`/usr/bin/python3 ../shared/bench/peer/peer_gateway.py --bootstrap … --port P --api-key KEY --topic T\`
  as its README runs it (one uvicorn process; \`acks=all\`, idempotent, lz4, \`linger.ms\` 5; untuned).
- **producer publish:** \`producer publish --brokers-file … --topic T\` given the data set file $PASSES times
  ($((EVENTS * PASSES)) events); its rate is its own summary's (from its start, its validation pass included, to
  the last delivery report); the wall rate around the process is beside it.
- **Accepted events** = the growth of the topic's end offsets (\`kcat -Q\`, every partition) over the measured run,
  read once the topic stopped growing; checked against wrk's 2xx answers × 100 (a run is flagged when they differ
  by more than the requests in flight at the end, or when any answer is not 2xx or any socket error occurred).
  Events/s = accepted events / wrk's measured duration. Latencies are wrk's (per request of 100 events).
- **CPU per accepted event:** utime+stime from \`/proc/PID/stat\` before and after the measured run (the server
  process with all its threads; devbroker's the same way; wrk's from \`/usr/bin/time\`).
- **Order:** odd rounds gateway, peer, publish; even rounds publish, peer, gateway.

## Per round
| Round | Side | Accepted events/s | Requests/s | p50 ms | p99 ms | max ms | 2xx | non-2xx | socket errors | Server CPU/event | Broker CPU/event | wrk CPU/event | Machine busy / other (cores) | Flags |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
EOF
        for r in $(seq 1 "$ROUNDS"); do
            http_row "$r" gw "ingest (ours)"
            http_row "$r" peer "peer (FastAPI)"
        done
        cat <<EOF

| Round | producer publish events/s (its summary) | wall rate | events in topic | producer CPU/event | Broker CPU/event | Machine busy / other (cores) | Flags |
|---|---|---|---|---|---|---|---|
EOF
        for r in $(seq 1 "$ROUNDS"); do
            local l="r${r}_pub"
            echo "| $r | $(fmt "$(get "${l}_rate")")/s | $(fmt "$(get "${l}_wall_rate")")/s | $(get "${l}_events") |" \
                "$(get "${l}_cpu_us") µs | $(get "${l}_broker_cpu_us") µs | $(get "${l}_busy_cores") / $(get "${l}_other_cores") | $(flag_text "$l") |"
        done
        cat <<EOF

Status codes per run (code:count): $(for r in $(seq 1 "$ROUNDS"); do for s in gw peer; do
            printf 'round %s %s %s; ' "$r" "$s" "$(get "r${r}_${s}_statuses")"; done; done | sed 's/; $//').

## Medians over $ROUNDS round(s)
| Side | Accepted events/s | p50 ms | p99 ms | Server CPU/event | Broker CPU/event |
|---|---|---|---|---|---|
| ingest (ours) | $(fmt "$gw")/s | $(median p50_ms gw) | $gw99 | $(median cpu_us gw) µs | $(median broker_cpu_us gw) µs |
| peer (FastAPI + confluent-kafka) | $(fmt "$peer")/s | $(median p50_ms peer) | $peer99 | $(median cpu_us peer) µs | $(median broker_cpu_us peer) µs |
| producer publish | $(fmt "$pub")/s | — | — | $(median cpu_us pub) µs (producer) | $(median broker_cpu_us pub) µs |

## Targets (issue 36 item 5; the publish ratio from issue 26 item 8)
Judged on the medians above$note.

| Target | Measured | Verdict |
|---|---|---|
| accepted events/s ≥ 4 × the peer's (requests of 100 events, $CONNECTIONS connections) | $(ratio "$gw" "$peer") × | $(verdict "$rate_ok") |
| … at a p99 ≤ the peer's | $gw99 ms vs $peer99 ms | $(verdict "$p99_ok") |
| accepted events/s ≥ 0.5 × \`producer publish\`'s | $(ratio "$gw" "$pub") × | $(verdict "$pub_ok") |
| the gateway's CPU per accepted event ≤ 0.3 × the peer's | $(median cpu_us gw) µs vs $(median cpu_us peer) µs: $(ratio "$(median cpu_us gw)" "$(median cpu_us peer)") × | $(verdict "$cpu_ok") |

What the rate targets need, next to what this machine allowed (computed from this run's medians, not a
forecast): 4 × the peer is $(fmt "$(calc "4 * $peer")")/s and 0.5 × publish $(fmt "$(calc "0.5 * $pub")")/s; the gateway
used $(median cores gw) cores while the machine was $(median busy_cores gw) cores busy (other jobs $(median other_cores gw));
all $(nproc) cores at the measured CPU per accepted event of the gateway + broker + wrk
($(median cpu_us gw) + $(median broker_cpu_us gw) + $(median wrk_cpu_us gw) µs) would carry at most
$(fmt "$(calc "$(nproc) * 1e6 / ($(median cpu_us gw) + $(median broker_cpu_us gw) + $(median wrk_cpu_us gw))")")/s; the peer runs one
Python event loop ($(median cores peer) cores in its runs).
wrk keeps one request of 100 events in flight per connection, so $CONNECTIONS connections carry at most
$CONNECTIONS × 100 events per request latency: 4 × the peer at $CONNECTIONS connections needs a mean latency of at most
$(calc "$CONNECTIONS * 100 * 1000 / (4 * $peer)" 2) ms (the gateway's median p50 in this run: $(median p50_ms gw) ms).

Per round (same round, same data): $(for r in $(seq 1 "$ROUNDS"); do
            printf 'round %s: %s × the peer, %s × publish; ' "$r" "$(ratio "$(get "r${r}_gw_rate")" "$(get "r${r}_peer_rate")")" \
                "$(ratio "$(get "r${r}_gw_rate")" "$(get "r${r}_pub_rate")")"; done | sed 's/; $//').

## Where the gateway's CPU went (per thread, round 1)
CPU seconds of each thread name of the \`ingest\` process over round 1's measured run (\`/proc/PID/task/*/stat\`;
the kernel keeps 15 characters of a name, so the Swift runtime's dispatch threads show as \`…default-qos\`).

| Thread | Threads | CPU s | Share |
|---|---|---|---|
EOF
        awk '{ t += $3; c[NR] = $1; n[NR] = $2; s[NR] = $3 } END { for (i = 1; i <= NR; i++) if (s[i] > 0)
            printf "| %s | %d | %.2f | %.1f %% |\n", c[i], n[i], s[i], (t > 0 ? 100 * s[i] / t : 0) }' "$OUT/r1_gw.threads"
        if [ -s "$OUT/perf.txt" ]; then
            cat <<EOF

## Profile of the gateway (perf record -g, an extra run not counted above)
\`perf record -F 499 -g -p PID\` over a ${DURATION} s wrk run like the measured ones; \`perf report --no-children\`.
Per thread name, and per binary:
\`\`\`
$(cat "$OUT/perf-comm.txt")

$(cat "$OUT/perf-dso.txt")
\`\`\`
Top symbols (self):
\`\`\`
$(cat "$OUT/perf.txt")
\`\`\`
EOF
        fi
        cat <<EOF

## Rerun
\`\`\`
$COMMAND
bench/ingest.sh --rounds 3 --duration 20 --connections 8 --threads 2   # the defaults
\`\`\`
Needs \`DVP_WITH_BENCH_PEERS=1 scripts/install-deps.sh\` (wrk, python3-fastapi, python3-uvicorn,
python3-confluent-kafka; the script runs it) and \`../shared/bench/peer/peer_gateway.py\`. Raw figures:
\`bench/out/ingest/results.txt\`; wrk outputs, server logs and per-thread CPU: \`bench/out/ingest/\`.
EOF
    } >"$REPORT"
}

write_ingest_report
log "ingest $(fmt "$(median rate gw)")/s p99 $(median p99_ms gw) ms; peer $(fmt "$(median rate peer)")/s p99" \
    "$(median p99_ms peer) ms; producer publish $(fmt "$(median rate pub)")/s"
log "wrote $REPORT"
