#!/usr/bin/env bash
# Throwaway PostgreSQL 15 clusters for tests.
#
#   pg-test-cluster.sh start DIR PORT|auto [--no-fsync]
#                                           initdb (if needed) and start; prints the connection URL. `auto` picks a
#                                           free port in 20000-32767 (below Linux's ephemeral range, so no broker or
#                                           client socket can hold it) and tries another while the port is taken.
#                                           --no-fsync: `fsync = off`, for the test suite's shared server only (why:
#                                           at `start)` below); without it `fsync = on`
#   pg-test-cluster.sh stop DIR             fast shutdown
#   pg-test-cluster.sh stop-immediate DIR   immediate shutdown
#   pg-test-cluster.sh restart-fast DIR     fast shutdown (clients disconnected), then start again
#   pg-test-cluster.sh restart-immediate DIR  immediate shutdown (crash, WAL recovery on start), then start
#   pg-test-cluster.sh url DIR              print the connection URL
#   pg-test-cluster.sh remove-after DIR PID  in the background: once process PID has ended (however it ended),
#                                           stop the cluster (immediate) and remove DIR; returns at once
#
# DIR is the data directory (created, owned by the `postgres` OS user). The server listens on 127.0.0.1:PORT only,
# with fsync on unless --no-fsync, trust authentication for local TCP, and its log in DIR/server.log. Scripts usually
# run as root and PostgreSQL refuses to run as root, so every server command runs as `postgres` (via runuser) when we
# are root.
set -euo pipefail

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_USER=${PG_USER:-postgres}

usage() {
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# Runs a command as the cluster owner (directly when we already are not root).
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u "$PG_USER" -- "$@"
    else
        "$@"
    fi
}

# Starts the server with no descriptor of ours but stdin/stdout/stderr: a daemon that inherits a caller's pipe or
# socket keeps it open for its whole life, and a caller waiting for EOF on it (e.g. Foundation's Process, which
# detects exit through an inherited socket) would wait until the server stops. That includes fd 255: bash keeps its
# script there only when the caller left 255 free (Foundation's exit-detection socket can sit on 255 itself), and
# the subshell no longer reads the script.
start_server() {
    (
        for fd in /proc/self/fd/*; do
            fd=${fd##*/}
            if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
        done
        as_owner "$PG_BIN/pg_ctl" -D "$1" -l "$1/server.log" -w -t 30 start >/dev/null
    )
}

port_of() { sed -n 's/^port = \([0-9]*\).*/\1/p' "$1/postgresql.conf" | tail -n 1; }

url_of() {
    local port
    port=$(port_of "$1")
    [ -n "$port" ] || { echo "error: no port configured in $1/postgresql.conf (was the cluster started?)" >&2; exit 1; }
    echo "postgresql://$PG_USER@127.0.0.1:$port/postgres?sslmode=disable"
}

wait_ready() {
    local port
    port=$(port_of "$1")
    for _ in $(seq 1 100); do
        if "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -U "$PG_USER"; then return 0; fi
        sleep 0.1
    done
    echo "error: PostgreSQL in $1 does not accept connections on 127.0.0.1:$port (see $1/server.log)" >&2
    exit 1
}

# The server log's lines after line $2 that say why the start failed (the log is appended to on every start).
log_since() { tail -n +"$(($2 + 1))" "$1/server.log" 2>/dev/null || true; }

# Starts the cluster in $1 on port $2; returns 3 when the port is taken, exits on any other failure.
start_on() {
    local dir=$1 port=$2 before
    sed -i '/^port = /d' "$dir/postgresql.conf"
    echo "port = $port" >>"$dir/postgresql.conf"
    before=0
    [ -f "$dir/server.log" ] && before=$(wc -l <"$dir/server.log")
    if ! start_server "$dir"; then
        if log_since "$dir" "$before" | grep -qE 'could not (bind|create listen socket)|Address already in use'; then
            return 3
        fi
        echo "error: PostgreSQL in $dir did not start on port $port; its log says:" >&2
        log_since "$dir" "$before" | tail -n 20 >&2
        exit 1
    fi
}

start() {
    local dir=$1 port=$2 fsync=$3 attempt
    [[ "$port" =~ ^([0-9]+|auto)$ ]] || { echo "error: PORT must be a number or 'auto', got '$port'" >&2; exit 2; }
    if [ ! -f "$dir/PG_VERSION" ]; then
        mkdir -p "$dir"
        [ "$(id -u)" -eq 0 ] && chown "$PG_USER" "$dir"
        chmod 700 "$dir"
        as_owner "$PG_BIN/initdb" -D "$dir" -U "$PG_USER" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
        cat >>"$dir/postgresql.conf" <<CONF
# pg-test-cluster.sh
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
fsync = on
synchronous_commit = on
max_connections = 300  # parallel tests, some stores on several connections (--store-connections)
CONF
    fi
    sed -i "s/^fsync = .*/fsync = $fsync/" "$dir/postgresql.conf"
    if as_owner "$PG_BIN/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
        echo "error: the cluster in $dir is already running ($(url_of "$dir"))" >&2
        exit 1
    fi
    if [ "$port" != auto ]; then
        start_on "$dir" "$port" || { echo "error: port $port on 127.0.0.1 is already in use" >&2; exit 1; }
    else
        local started=no
        for attempt in $(seq 1 20); do
            port=$((20000 + RANDOM % 12768))
            # Something already listening: skip without a start attempt.
            if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
            if start_on "$dir" "$port"; then started=yes; break; fi
        done
        [ "$started" = yes ] || { echo "error: no free port for PostgreSQL found in 20 attempts" >&2; exit 1; }
    fi
    wait_ready "$dir"
    url_of "$dir"
}

stop_mode() {
    as_owner "$PG_BIN/pg_ctl" -D "$1" -m "$2" -w -t 30 stop >/dev/null
}

restart() {
    local dir=$1 mode=$2
    stop_mode "$dir" "$mode"
    start_on "$dir" "$(port_of "$dir")" || { echo "error: port $(port_of "$dir") was taken during the restart" >&2; exit 1; }
    wait_ready "$dir"
}

# Detached from the caller (new session, no inherited descriptors): waits for $2 to end, then removes the cluster.
remove_after() {
    local dir=$1 pid=$2
    [[ "$pid" =~ ^[0-9]+$ ]] || { echo "error: PID must be a number, got '$pid'" >&2; exit 2; }
    [ -f "$dir/PG_VERSION" ] || { echo "error: $dir is not a cluster's data directory" >&2; exit 1; }
    setsid bash -c '
        for fd in /proc/self/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done
        while kill -0 "$2" 2>/dev/null; do sleep 1; done
        "$0" stop-immediate "$1" >/dev/null 2>&1 || true
        rm -rf "$1"
    ' "$0" "$dir" "$pid" </dev/null >/dev/null 2>&1 &
}

[ $# -ge 2 ] || usage
command=$1
dir=$2
case "$command" in
    start)
        # --no-fsync is for the test suite's shared server: every test's fresh database ends with DROP DATABASE,
        # whose forced checkpoint syncs every file of every other test's tables (a clean-clone run logged 10 s
        # checkpoints, 14,206 files each, while store tests queued behind them past their time limits). No test
        # cuts the power, so fsync changes none of their outcomes; a server killed or stopped (immediate) still
        # recovers from its WAL in the page cache. Benchmarks, the demo and the soak keep fsync on.
        if [ $# -eq 3 ]; then
            start "$dir" "$3" on
        elif [ $# -eq 4 ] && [ "$4" = --no-fsync ]; then
            start "$dir" "$3" off
        else
            usage
        fi
        ;;
    stop) stop_mode "$dir" fast ;;
    stop-immediate) stop_mode "$dir" immediate ;;
    remove-after) [ $# -eq 3 ] || usage; remove_after "$dir" "$3" ;;
    restart-fast) restart "$dir" fast ;;
    restart-immediate) restart "$dir" immediate ;;
    url) url_of "$dir" ;;
    *) usage ;;
esac
