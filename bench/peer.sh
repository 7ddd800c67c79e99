# The Python peer of bench/run.sh (sourced; uses its variables and lib.sh): ../shared/bench/peer/peer_worker.py,
# the worker a Python user would write, on the same topics and the same PostgreSQL cluster in the same run.

PEER_DIR=${PEER_DIR:-$ROOT/../shared/bench/peer}
PEER_IDLE=5   # the peer exits after this many seconds without records

# Whether the peer and its Debian dependencies are here (installs python3-confluent-kafka and python3-psycopg2 as
# root when missing); says why not otherwise.
peer_available() {
    if [ ! -f "$PEER_DIR/peer_worker.py" ]; then
        log "peer not run: $PEER_DIR/peer_worker.py is absent"
        return 1
    fi
    if ! /usr/bin/python3 -c 'import confluent_kafka, psycopg2' 2>/dev/null; then
        if [ "$(id -u)" -eq 0 ]; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-confluent-kafka python3-psycopg2 >&2
        fi
        /usr/bin/python3 -c 'import confluent_kafka, psycopg2' 2>/dev/null || {
            log "peer not run: python3-confluent-kafka / python3-psycopg2 missing (apt-get install them)"
            return 1
        }
    fi
}

# run_peers LABEL PROCS DB TOPIC: PROCS peer processes in a new group until idle. Steady rate = events /
# (last commit − first record) over all processes (the peer's own figure: no group join); wall rate leaves out
# the final idle wait; CPU per event for the peer processes and for the PostgreSQL cluster.
run_peers() {
    local label=$1 procs=$2 db=$3 topic=$4 group="peer-$1-$RANDOM" t0 t1 i pids=() cpu=0 pg0
    # The peer's own table, created once before its processes start (two concurrent CREATE TABLE IF NOT EXISTS
    # race on the type name).
    PEER_DSN=$(db_url "$db") /usr/bin/python3 -c 'import os, sys; sys.path.insert(0, sys.argv[1]); import peer_worker
import psycopg2; c = psycopg2.connect(os.environ["PEER_DSN"]); c.cursor().execute(peer_worker.DDL); c.commit()' \
        "$PEER_DIR"
    pg0=$(pg_cpu_seconds)
    t0=$(now)
    # Each process under a supervisor, as a deployment would run it: the peer exits with an exception when a
    # synchronous offset commit meets REBALANCE_IN_PROGRESS (the mock refuses commits while a group rebalances, e.g.
    # after the other process left; a real broker accepts them), and is then restarted in the same group (at most
    # 3 times; the restarts are counted and the run's ratio is not judged).
    : >"$OUT/$label.restarts"
    for i in $(seq 1 "$procs"); do
        : >"$OUT/$label.$i.out"
        : >"$OUT/$label.$i.log"
        (
            for attempt in 0 1 2 3; do
                /usr/bin/python3 "$PEER_DIR/peer_worker.py" --bootstrap "$BROKERS" --topic "$topic" --group "$group" \
                    --dsn "$(db_url "$db")" --idle "$PEER_IDLE" >>"$OUT/$label.$i.out" 2>>"$OUT/$label.$i.log" && exit 0
                status=$?
                [ "$attempt" -lt 3 ] && grep -q REBALANCE_IN_PROGRESS <<<"$(tail -n 5 "$OUT/$label.$i.log")" \
                    || exit "$status"
                echo "$i" >>"$OUT/$label.restarts"
            done
        ) &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || { echo "error: peer $label.$((i + 1)) failed (see $OUT/$label.$((i + 1)).log)" >&2; exit 1; }
    done
    t1=$(now)
    local first last msgs
    first=$(cat "$OUT/$label".*.out | /usr/bin/python3 -c 'import sys, json; print(min(json.loads(l)["t_first"] for l in sys.stdin if json.loads(l)["t_first"]))')
    last=$(cat "$OUT/$label".*.out | /usr/bin/python3 -c 'import sys, json; print(max(json.loads(l)["t_last"] or 0 for l in sys.stdin))')
    msgs=$(cat "$OUT/$label".*.out | /usr/bin/python3 -c 'import sys, json; print(sum(json.loads(l)["msgs"] for l in sys.stdin))')
    cpu=$(cat "$OUT/$label".*.out | /usr/bin/python3 -c 'import sys, json; print(sum(json.loads(l)["cpu_s"] for l in sys.stdin))')
    put "${label}_bad" "$(cat "$OUT/$label".*.out | /usr/bin/python3 -c 'import sys, json; print(sum(json.loads(l)["bad"] for l in sys.stdin))')"
    local restarts
    restarts=$(wc -l <"$OUT/$label.restarts")
    put "${label}_restarts" "$restarts"
    # A crashed process prints no totals (its messages and CPU are missing from the sums): check only clean runs.
    if [ "$restarts" -eq 0 ] && [ "$msgs" -lt "$EVENTS" ]; then
        echo "error: peer $label consumed $msgs of $EVENTS events" >&2
        exit 1
    fi
    put "${label}_steady_rate" "$(calc "$EVENTS / ($last - $first)")"
    put "${label}_seconds" "$(calc "$t1 - $t0 - $PEER_IDLE" 2)"
    put "${label}_rate" "$(calc "$EVENTS / ($t1 - $t0 - $PEER_IDLE)")"
    put "${label}_cpu_us" "$(calc "$cpu * 1e6 / $EVENTS" 1)"
    put "${label}_pg_cpu_us" "$(calc "($(pg_cpu_seconds) - $pg0) * 1e6 / $EVENTS" 1)"
    put "${label}_consumed" "$msgs"
}

# run_sqlite_peer LABEL DB TOPIC: one ../shared/bench/peer/peer_worker_sqlite.py process in a new group until idle.
# Steady rate = events / (last commit − first record), the peer's own figure; CPU = its whole process (user+sys).
run_sqlite_peer() {
    local label=$1 db=$2 topic=$3 user sys
    /usr/bin/time -f '%e %U %S %M' -o "$OUT/$label.time" /usr/bin/python3 "$PEER_DIR/peer_worker_sqlite.py" \
        --bootstrap "$BROKERS" --topic "$topic" --group "peer-$label-$RANDOM" --db "$db" --idle "$PEER_IDLE" \
        >"$OUT/$label.out" 2>"$OUT/$label.log" || { echo "error: peer $label failed (see $OUT/$label.log)" >&2; exit 1; }
    read -r _ user sys _ <"$OUT/$label.time"
    put "${label}_steady_rate" "$(/usr/bin/python3 -c 'import json, sys; r = json.loads(open(sys.argv[1]).read())
print(round(int(sys.argv[2]) / (r["t_last"] - r["t_first"])))' "$OUT/$label.out" "$EVENTS")"
    put "${label}_cpu_us" "$(calc "($user + $sys) * 1e6 / $EVENTS" 1)"
    put "${label}_consumed" "$(/usr/bin/python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).read())["msgs"])' \
        "$OUT/$label.out")"
}

# The SQLite peer after the worker's SQLite runs (measure_sqlite), on the same topics: first load, exact replay, higher
# versions, one process, its own file in WAL mode.
measure_sqlite_peer() {
    if [ ! -f "$PEER_DIR/peer_worker_sqlite.py" ] || ! /usr/bin/python3 -c 'import confluent_kafka' 2>/dev/null; then
        log "SQLite peer not run: $PEER_DIR/peer_worker_sqlite.py or python3-confluent-kafka absent"
        put sqlite_peer_ran 0
        return 0
    fi
    put sqlite_peer_ran 1
    local db=$OUT/peer.sqlite
    rm -f "$db" "$db"-*
    log "Python peer on SQLite, one process"
    run_sqlite_peer sqpeer_load "$db" "$TOPIC"
    sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
    put sqpeer_rows "$(sqlite3 "$db" "SELECT count(*) FROM peer_observation")"
    put sqpeer_row_bytes "$(calc "$(stat -c %s "$db") / $(get sqpeer_rows)")"
    run_sqlite_peer sqpeer_replay "$db" "$TOPIC"
    run_sqlite_peer sqpeer_replace "$db" "$TOPIC2"
}

# Same order as the worker: first load, exact replay (new group), higher versions; 1 process, then 2.
measure_peer() {
    if ! peer_available; then
        put peer_ran 0
        return 0
    fi
    put peer_ran 1
    log "Python peer on PostgreSQL, one process"
    checkpoint p1
    run_peers peer1_load 1 p1 "$TOPIC"
    # The peer skips events it cannot map ("bad": e.g. blood-pressure panels, which it predates); every other
    # identity must be stored, so its rows + its skipped events cover the worker's rows.
    local peer_rows worker_rows
    peer_rows=$(sql p1 "SELECT count(*) FROM peer_observation")
    worker_rows=$(sql w1 "SELECT count(*) FROM observation")
    put peer_rows "$peer_rows"
    put worker_rows "$worker_rows"
    put peer_table_row_bytes "$(bytes_per_row p1 peer_observation)"
    if [ "$peer_rows" -gt "$worker_rows" ] || [ $((peer_rows + $(get peer1_load_bad))) -lt "$worker_rows" ]; then
        echo "error: the peer stored $peer_rows rows, the worker $worker_rows" >&2
        exit 1
    fi
    checkpoint p1
    run_peers peer1_replay 1 p1 "$TOPIC"
    checkpoint p1
    run_peers peer1_replace 1 p1 "$TOPIC2"
    log "Python peer on PostgreSQL, two processes"
    checkpoint p2
    run_peers peer2_load 2 p2 "$TOPIC"
    checkpoint p2
    run_peers peer2_replay 2 p2 "$TOPIC"
    checkpoint p2
    run_peers peer2_replace 2 p2 "$TOPIC2"
    put peer_row_bytes_avg "$(sql p1 "SELECT round(avg(pg_column_size(resource))) FROM peer_observation")"
    put worker_row_bytes_avg "$(sql w1 "SELECT round(avg(pg_column_size(document))) FROM observation")"
}
