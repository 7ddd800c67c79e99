#!/usr/bin/env bash
# Soak: the whole pipeline for a long time under a random fault every few seconds, then the oracle. Not part of CI.
#
#   scripts/soak.sh [--events N] [--minutes M] [--partitions P] [--workers W] [--seed S] [--gap MIN-MAX] [--out DIR]
#
# Defaults: 1,000,000 events (`producer generate`, population sized to match, --rate = events / (minutes * 60) so
# producing lasts >= --minutes 10), 32 partitions, 2 workers in group "soak" on a throwaway PostgreSQL 15
# (scripts/pg-test-cluster.sh), devbroker with 3 brokers; a fault every 2-6 s (--gap), one at a time, for at least
# --minutes and until the producer is done:
#   broker down 2-8 s, then up | partition leader move | PostgreSQL restart -m fast | restart -m immediate |
#   SIGTERM of a worker | kill -9 of a worker (each stopped worker is replaced at once).
# Then the drain: the live workers get SIGTERM, one `worker --until-caught-up` in the group reads the rest, and
# the checks run against the generator's oracle (--oracle-out):
#   lost           identities not stored at their highest sent version
#   stale          version decreases logged by the audit trigger (storectl audit-install / audit-check), plus
#                  identities stored above the highest version sent or never sent valid
#   dead letters   distinct source records (partition, offset) in the DLQ (kcat) = invalid events sent, each with
#                  a reason header
#   unread         records a fresh member of the group still finds (kcat -G, no commit): 0 means committed == end
#   worker exits   counted by termination reason; SIGABRT (134, librdkafka 2.0.2 #4312) must not happen
# Prints a markdown result to paste into docs/RELIABILITY.md (also DIR/result.md); exit 0 when every check passed.
# Binaries: $DVP_BIN_DIR, else a release build (`swift build -c release`). Logs and data: --out DIR (default
# var/soak/<UTC time>). Needs kcat, psql and python3 (the tools the test suite uses). Run as root or as a user that
# can run PostgreSQL (see pg-test-cluster.sh). Example of a short check: scripts/soak.sh --events 50000 --minutes 2
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
events=1000000 minutes=10 partitions=32 workers=2 seed=1 gap_min=2 gap_max=6 out=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --events) events=$2; shift ;;
        --minutes) minutes=$2; shift ;;
        --partitions) partitions=$2; shift ;;
        --workers) workers=$2; shift ;;
        --seed) seed=$2; shift ;;
        --gap) gap_min=${2%-*}; gap_max=${2#*-}; shift ;;
        --out) out=$2; shift ;;
        *) usage ;;
    esac
    shift
done
for n in "$events" "$minutes" "$partitions" "$workers" "$seed" "$gap_min" "$gap_max"; do
    [[ $n =~ ^[0-9]+$ ]] || { echo "soak: '$n' is not a non-negative integer" >&2; usage; }
done
((events > 0 && minutes > 0 && partitions > 0 && workers > 0 && gap_max >= gap_min)) || usage
for tool in kcat psql python3; do command -v "$tool" >/dev/null || { echo "soak: $tool is missing" >&2; exit 1; }; done

if [[ -n ${DVP_BIN_DIR:-} ]]; then
    bin=$DVP_BIN_DIR
else
    swift build -c release 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' >&2
    bin=$(swift build -c release --show-bin-path)
fi
for b in worker producer devbroker storectl; do [[ -x $bin/$b ]] || { echo "soak: no $bin/$b" >&2; exit 1; }; done

run=$(realpath -m "${out:-$root/var/soak/$(date -u +%Y%m%dT%H%M%SZ)}")
mkdir -p "$run"
topic=daily-values dlq=daily-values.dlq group=soak days=30 drain=20
shares=(--late-share 0.05 --duplicate-share 0.02 --out-of-order-share 0.02 --invalid-share 0.005)
start_day=$(date -u -d "-$days days" +%F)
log() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$run/soak.log" >&2; }

# MARK: - Processes we own (stopped by pid on every path)

pgdir=$(mktemp -d /var/tmp/dvp-soak-pg.XXXXXX)   # outside the checkout: the server runs as `postgres`
broker_pid="" producer_pid=""
declare -a slot_pid=() slot_name=()
cleanup() {
    for pid in "${slot_pid[@]}" "$producer_pid" "$broker_pid"; do
        [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    scripts/pg-test-cluster.sh stop "$pgdir" >/dev/null 2>&1 || true
    rm -rf "$pgdir"
}
trap cleanup EXIT

alive() { [[ -r /proc/$1/stat ]] && [[ $(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) != Z ]]; }

# MARK: - PostgreSQL with the version audit, devbroker with a control FIFO

store=$(scripts/pg-test-cluster.sh start "$pgdir" auto 2>>"$run/soak.log") ||
    { echo "soak: PostgreSQL did not start (see $run/soak.log)" >&2; exit 1; }
"$bin/storectl" audit-install --store "$store" >/dev/null
log "PostgreSQL at $store (data $pgdir), version audit installed"

"$bin/devbroker" --brokers 3 --topic "$topic:$partitions" --topic "$dlq:3" --bootstrap-file "$run/bootstrap" \
    --control "$run/control" >"$run/devbroker.log" 2>&1 &
broker_pid=$!
for _ in $(seq 100); do [[ -s $run/bootstrap && -p $run/control ]] && break; sleep 0.1; done
[[ -s $run/bootstrap ]] || { cat "$run/devbroker.log" >&2; echo "soak: devbroker did not start" >&2; exit 1; }
brokers=$(head -n 1 "$run/bootstrap")   # line 2 is devbroker's marker: the workers need no id key
log "devbroker at $brokers ($partitions partitions)"
control() {
    timeout 5 bash -c 'printf "%s\n" "$1" > "$2"' _ "$1" "$run/control" || log "control '$1' not delivered"
}

# MARK: - The producer: a population sized to --events, paced to last --minutes

# Into a scratch file, never --out /dev/null: the producer creates its output file by atomic replace.
calibration=$("$bin/producer" generate --patients 100 --days "$days" --start-day "$start_day" --seed "$seed" \
    "${shares[@]}" --out "$run/calibration.jsonl" 2>&1 | sed -n 's/^generated \([0-9]*\) events.*/\1/p')
rm -f "$run/calibration.jsonl"
[[ -n $calibration ]] || { echo "soak: producer generate printed no event count" >&2; exit 1; }
patients=$(((events * 100 + calibration - 1) / calibration))
rate=$((events / (minutes * 60) > 0 ? events / (minutes * 60) : 1))
log "producer: $patients patients x $days days (~$events events) at $rate events/s, seed $seed"
"$bin/producer" generate --brokers-file "$run/bootstrap" --topic "$topic" --patients "$patients" --days "$days" \
    --start-day "$start_day" --seed "$seed" "${shares[@]}" --rate "$rate" --oracle-out "$run/oracle.tsv" \
    >"$run/producer.log" 2>&1 &
producer_pid=$!

# MARK: - Workers and their exits

declare -A exits=() faults=()
worker_count=0
worker_args=(--brokers-file "$run/bootstrap" --topic "$topic" --dlq-topic "$dlq" --group "$group" --store "$store"
    --http-address 127.0.0.1 --http-port 0 --drain-timeout "$drain"
    -X session.timeout.ms=6000 -X heartbeat.interval.ms=1000)

start_worker() { # SLOT
    worker_count=$((worker_count + 1))
    slot_name[$1]="w$worker_count"
    "$bin/worker" "${worker_args[@]}" --worker-id "${slot_name[$1]}" \
        >"$run/${slot_name[$1]}.out" 2>"$run/${slot_name[$1]}.err" &
    slot_pid[$1]=$!
}

# Reaps an exited worker and counts it under its termination reason. CAUSE: sigterm, kill9, none (not asked).
record_exit() { # PID NAME CAUSE
    local status=0 reason
    { wait "$1"; } 2>/dev/null || status=$?   # no job-control "Killed" line: the reason is logged below
    if ((status == 134)); then
        reason="SIGABRT (134)"
    elif [[ $3 == kill9 ]] && ((status == 137)); then
        reason="kill -9 (fault)"
    elif [[ $3 == sigterm ]]; then
        reason="SIGTERM → exit $status"
    elif ((status > 128)); then
        reason="signal $((status - 128)), not sent by the soak"
    else
        reason="exit $status, not asked to stop"
    fi
    exits[$reason]=$((${exits[$reason]:-0} + 1))
    [[ $3 == none || $status -ne 0 && $3 != kill9 ]] && log "$2 ended: $reason (see $run/$2.err)"
    return 0
}

# SIGTERM (waiting up to twice the drain timeout, then kill -9) or kill -9 of the worker in SLOT.
stop_worker() { # SLOT sigterm|kill9
    local pid=${slot_pid[$1]} i
    if [[ $2 == kill9 ]]; then
        kill -KILL "$pid" 2>/dev/null || true
    else
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < drain * 20; i++)); do alive "$pid" || break; sleep 0.1; done
        if alive "$pid"; then
            log "${slot_name[$1]} still running $((drain * 2)) s after SIGTERM: kill -9"
            exits["hung after SIGTERM (kill -9)"]=$((${exits["hung after SIGTERM (kill -9)"]:-0} + 1))
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    record_exit "$pid" "${slot_name[$1]}" "$2"
}

replace_dead_workers() {
    local slot
    for slot in "${!slot_pid[@]}"; do
        if ! alive "${slot_pid[$slot]}"; then
            record_exit "${slot_pid[$slot]}" "${slot_name[$slot]}" none
            start_worker "$slot"
        fi
    done
}

for ((slot = 0; slot < workers; slot++)); do start_worker "$slot"; done
log "started $workers workers"

# MARK: - Faults, one at a time, until --minutes passed and the producer is done

fault_kinds=(broker-down leader-move pg-restart-fast pg-restart-immediate worker-sigterm worker-kill9)
RANDOM=$seed
started=$SECONDS
while ((SECONDS - started < minutes * 60)) || alive "$producer_pid"; do
    sleep $((gap_min + RANDOM % (gap_max - gap_min + 1)))
    replace_dead_workers
    kind=${fault_kinds[RANDOM % ${#fault_kinds[@]}]}
    faults[$kind]=$((${faults[$kind]:-0} + 1))
    case $kind in
        broker-down)
            b=$((1 + RANDOM % 3)) hold=$((2 + RANDOM % 7))
            log "fault: broker $b down for $hold s"
            control "down $b"
            sleep "$hold"
            control "up $b"
            ;;
        leader-move)
            p=$((RANDOM % partitions)) b=$((1 + RANDOM % 3))
            log "fault: leader of $topic [$p] -> broker $b"
            control "leader $topic $p $b"
            ;;
        pg-restart-fast | pg-restart-immediate)
            log "fault: PostgreSQL ${kind#pg-}"
            scripts/pg-test-cluster.sh "${kind#pg-}" "$pgdir" >>"$run/soak.log" 2>&1 || log "${kind#pg-} failed"
            ;;
        worker-sigterm | worker-kill9)
            slot=$((RANDOM % workers))
            log "fault: ${kind#worker-} ${slot_name[$slot]}, replacement starts"
            stop_worker "$slot" "${kind#worker-}"
            start_worker "$slot"
            ;;
    esac
done
fault_seconds=$((SECONDS - started))
producer_status=0
wait "$producer_pid" || producer_status=$?
producer_pid=""
log "faults done after $fault_seconds s; producer exited $producer_status: $(tail -n 1 "$run/producer.log")"

# MARK: - Drain: SIGTERM the live workers, then one worker --until-caught-up reads the rest

replace_dead_workers
for slot in "${!slot_pid[@]}"; do stop_worker "$slot" sigterm; done
slot_pid=()
catch_up_status=0
timeout 1800 "$bin/worker" "${worker_args[@]}" --worker-id catch-up --until-caught-up \
    >"$run/catch-up.out" 2>"$run/catch-up.err" || catch_up_status=$?
log "catch-up worker exited $catch_up_status"

# MARK: - Checks

partition_args=()
for ((p = 0; p < partitions; p++)); do partition_args+=(-t "$topic:$p:-1"); done
sent=$(kcat -Q -b "$brokers" "${partition_args[@]}" 2>/dev/null | awk '{s += $NF} END {print s + 0}')
unread=$(timeout 300 kcat -b "$brokers" -G "$group" -X auto.offset.reset=earliest -X enable.auto.commit=false \
    -X partition.assignment.strategy=cooperative-sticky -X session.timeout.ms=6000 -e -q -f 'x\n' "$topic" \
    2>/dev/null | wc -l) || unread="?"
"$bin/storectl" dump --store "$store" >"$run/store.tsv"
audit=$("$bin/storectl" audit-check --store "$store" || true)
decreases=$(sed -n 's/^decreases: //p' <<<"$audit")
replaces=$(sed -n 's/^updates: //p' <<<"$audit")
kcat -C -b "$brokers" -t "$dlq" -o beginning -e -q -f '%h\n' >"$run/dlq-headers.txt" 2>/dev/null

read -r identities invalid lost above never dlq_sources dlq_records dlq_no_reason < <(python3 - "$run" <<'EOF'
import re, sys
run = sys.argv[1]
expected, invalid = {}, 0
for line in open(f"{run}/oracle.tsv"):
    fields = line.rstrip("\n").split("\t")
    if line.startswith("#") or not fields[0]:
        continue
    if fields[0] == "invalid":
        invalid += 1
    elif len(fields) == 2:
        expected[fields[0]] = max(expected.get(fields[0], -1), int(fields[1]))
stored = {}
for line in open(f"{run}/store.tsv"):
    fields = line.rstrip("\n").split("\t")
    if len(fields) >= 2:
        stored[fields[0]] = int(fields[1])
lost = sum(1 for key, version in expected.items() if stored.get(key, -1) < version)
above = sum(1 for key, version in expected.items() if stored.get(key, -1) > version)
never = sum(1 for key in stored if key not in expected)
sources, records, no_reason = set(), 0, 0
for line in open(f"{run}/dlq-headers.txt"):
    records += 1
    part = re.search(r"(?:^|,)__connect\.errors\.partition=([0-9]+)", line)
    offset = re.search(r"(?:^|,)__connect\.errors\.offset=([0-9]+)", line)
    sources.add((part and part.group(1), offset and offset.group(1)))
    if not re.search(r"(?:^|,)__connect\.errors\.exception\.message=[^,\n]", line):
        no_reason += 1
print(len(expected), invalid, lost, above, never, len(sources), records, no_reason)
EOF
)
[[ -n ${dlq_no_reason:-} ]] || { echo "soak: the oracle comparison failed (see above)" >&2; exit 1; }

exit_total=0 aborts=${exits["SIGABRT (134)"]:-0}
for reason in "${!exits[@]}"; do exit_total=$((exit_total + exits[$reason])); done
gaps=$(cat "$run"/w*.err "$run/catch-up.err" | grep -c '"retention gap' || true)
store_retries=$(cat "$run"/w*.err "$run/catch-up.err" | grep -c 'store upsert failed; retrying' || true)
control_errors=$(grep -c '^error' "$run/devbroker.log" || true)
fault_total=0
for kind in "${!faults[@]}"; do fault_total=$((fault_total + faults[$kind])); done

failures=()
((lost == 0)) || failures+=("$lost lost")
((${decreases:-1} == 0 && above == 0 && never == 0)) ||
    failures+=("stale: ${decreases:-?} decreases, $above above the oracle, $never never sent valid")
((dlq_sources == invalid && dlq_no_reason == 0)) ||
    failures+=("DLQ: $dlq_sources sources for $invalid invalid, $dlq_no_reason without a reason")
[[ $unread == 0 ]] || failures+=("$unread records unread by the group")
((aborts == 0)) || failures+=("$aborts SIGABRT exits")
((producer_status == 0)) || failures+=("producer exited $producer_status (the oracle may name unsent events)")
((catch_up_status == 0)) || failures+=("catch-up worker exited $catch_up_status")
result=pass
((${#failures[@]} == 0)) || result="FAIL: $(IFS=';'; echo "${failures[*]}")"

notes=()
((gaps == 0)) || notes+=("$gaps retention-gap errors logged")
((control_errors == 0)) || notes+=("$control_errors devbroker control errors")
((dlq_records == dlq_sources)) || notes+=("$((dlq_records - dlq_sources)) duplicate dead-letter records")
notes+=("$store_retries store upserts retried" "$replaces version replaces audited")

{
    printf '### Soak: %s events, %s workers, PostgreSQL, devbroker (%s partitions), %s min of faults (%s)\n\n' \
        "$sent" "$workers" "$partitions" "$((fault_seconds / 60))" "$(date -u +%F)"
    printf '`scripts/soak.sh --events %s --minutes %s --seed %s` (generator: %s patients x %s days, %s events/s).\n\n' \
        "$events" "$minutes" "$seed" "$patients" "$days" "$rate"
    printf '| Events sent | Identities | Invalid sent | Fault phase (s) | Faults | Lost | Stale overwrites '
    printf '| DLQ sources | Unread by the group | Worker exits | Aborts (SIGABRT) | Result | Notes |\n'
    printf '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n'
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$sent" "$identities" "$invalid" \
        "$fault_seconds" "$fault_total" "$lost" "$((${decreases:-0} + above + never))" "$dlq_sources" "$unread" \
        "$exit_total" "$aborts" "$result" "$(IFS=';'; echo "${notes[*]}" | sed 's/;/; /g')"
    printf '\n| Fault | Count |\n|---|---:|\n'
    for kind in "${fault_kinds[@]}"; do printf '| %s | %s |\n' "$kind" "${faults[$kind]:-0}"; done
    printf '\n| Worker exit (termination reason) | Count |\n|---|---:|\n'
    for reason in "${!exits[@]}"; do printf '| %s | %s |\n' "$reason" "${exits[$reason]}"; done | sort
    printf '| catch-up worker (--until-caught-up) → exit %s | 1 |\n' "$catch_up_status"
} | tee "$run/result.md"
log "logs and data: $run"
[[ $result == pass ]]
