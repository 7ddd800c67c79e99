#!/usr/bin/env bash
# check-runtime-image.sh — prove, without a Docker engine, that the release binaries run in the runtime image.
#
# What it does:
#   1. Parses the runtime package list (ARG RUNTIME_PACKAGES) and the app UID/GID from the Dockerfile's runtime
#      stage: the Dockerfile stays the single source of truth.
#   2. Builds the release binaries exactly as the Dockerfile does (swift build -c release --static-swift-stdlib).
#   3. Creates a minimal Debian bookworm root with debootstrap --variant=minbase --include=<those packages>, cached
#      under /var/tmp keyed by suite, mirror, architecture and package list (rebuilt only when the list changes).
#   4. Copies the binaries to /usr/local/bin, then runs every check inside a chroot that looks like the pod: the root
#      is a read-only bind mount, /tmp is a tmpfs (the emptyDir), /proc is mounted and /dev holds only
#      null/zero/random/urandom; processes run as the image's non-root UID:GID with an empty environment.
#   5. Checks: `ldd` of every binary inside the root (any "not found" fails), `<binary> --help` exits 0, and an
#      embedded-broker round trip (devbroker → producer generate/publish → worker --until-caught-up into SQLite →
#      storectl counts). Binaries that are still placeholders are reported as SKIPPED.
#
# Usage: scripts/check-runtime-image.sh [--skip-build] [--rebuild-rootfs]
# Environment: DVP_DOCKERFILE (default ./Dockerfile), DVP_DEBIAN_MIRROR (default http://deb.debian.org/debian),
#              DVP_ROOTFS_CACHE (default /var/tmp), DVP_RUNTIME_BIN_DIR (use release binaries from there; implies --skip-build),
#              DVP_CHECK_GENERATE_ARGS (arguments of `producer generate`, default below).
# Needs: root, debootstrap, network access to the Debian mirror on the first run.
set -euo pipefail

# MARK: - Settings

ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT_DIR
readonly DOCKERFILE="${DVP_DOCKERFILE:-$ROOT_DIR/Dockerfile}"
readonly SUITE=bookworm
readonly MIRROR="${DVP_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
readonly CACHE_BASE="${DVP_ROOTFS_CACHE:-/var/tmp}"
readonly PRODUCTS=(worker producer devbroker storectl)
readonly PLACEHOLDER_MARKER="not implemented yet"
readonly TOPIC=daily-values
readonly GENERATE_ARGS="${DVP_CHECK_GENERATE_ARGS:---patients 20 --days 7 --seed 42 --out -}"

skip_build=false
rebuild_rootfs=false
for arg in "$@"; do
    case "$arg" in
        --skip-build) skip_build=true ;;
        --rebuild-rootfs) rebuild_rootfs=true ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument: $arg" >&2; exit 2 ;;
    esac
done

# MARK: - Reporting

results=()
failures=0
script_start=$(date +%s.%N)

elapsed_since() { awk -v start="$1" -v end="$(date +%s.%N)" 'BEGIN { printf "%.1f", end - start }'; }

# record STATUS NAME START [DETAIL]
record() {
    local status="$1" name="$2" seconds
    seconds="$(elapsed_since "$3")"
    results+=("$(printf '%-8s %7ss  %s%s' "$status" "$seconds" "$name" "${4:+ — $4}")")
    printf '==> %s %s (%ss)%s\n' "$status" "$name" "$seconds" "${4:+ — $4}"
    if [[ "$status" == FAIL ]]; then failures=$((failures + 1)); fi
}

die() { echo "check-runtime-image: $*" >&2; exit 1; }

# MARK: - Dockerfile parsing (single source of truth)

# Joins backslash continuations the way the Dockerfile parser does, then prints the value of the LAST `ARG name=`
# (the runtime stage is the last stage), without surrounding quotes.
dockerfile_arg() {
    local name="$1" line value
    line="$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$DOCKERFILE" | grep -E "^ARG ${name}=" | tail -n 1)" \
        || die "no 'ARG ${name}=' in $DOCKERFILE"
    value="${line#ARG "${name}"=}"
    value="${value#\"}"
    value="${value%\"}"
    printf '%s\n' "$value"
}

[[ $EUID -eq 0 ]] || die "must run as root (debootstrap, mount, chroot)"
command -v debootstrap > /dev/null || die "debootstrap is not installed (apt-get install debootstrap)"

read -r -a packages <<< "$(dockerfile_arg RUNTIME_PACKAGES)"
((${#packages[@]} > 0)) || die "ARG RUNTIME_PACKAGES in $DOCKERFILE is empty"
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)
app_uid="$(dockerfile_arg APP_UID)"
app_gid="$(dockerfile_arg APP_GID)"
[[ "$app_uid" =~ ^[0-9]+$ && "$app_gid" =~ ^[0-9]+$ ]] || die "APP_UID/APP_GID must be numeric in $DOCKERFILE"
echo "runtime packages (from Dockerfile): ${packages[*]}"
echo "runtime user: ${app_uid}:${app_gid}"

# MARK: - Release build

cd "$ROOT_DIR"
step_start=$(date +%s.%N)
if [[ -n "${DVP_RUNTIME_BIN_DIR:-}" ]]; then
    skip_build=true
    bin_dir="$DVP_RUNTIME_BIN_DIR"
else
    if [[ "$skip_build" == false ]]; then
        swift build -c release --static-swift-stdlib
    fi
    bin_dir="$(swift build -c release --static-swift-stdlib --show-bin-path)"
fi
for product in "${PRODUCTS[@]}"; do
    [[ -x "$bin_dir/$product" ]] || die "missing release binary $bin_dir/$product (run without --skip-build)"
done
record PASS "release build (swift build -c release --static-swift-stdlib)" "$step_start" \
    "$([[ "$skip_build" == true ]] && echo "not built here, reused $bin_dir" || echo "$bin_dir")"

# MARK: - Cached minimal root

key="$(printf '%s\n' "$SUITE" "$MIRROR" "$(dpkg --print-architecture)" "${packages[@]}" | sha256sum | cut -c1-16)"
rootfs="$CACHE_BASE/dvp-runtime-rootfs-$key"
step_start=$(date +%s.%N)
exec 9> "$rootfs.lock"
flock 9 # concurrent runs share one cache entry; the second waits for the first debootstrap
if [[ "$rebuild_rootfs" == true ]]; then rm -rf "$rootfs"; fi
if [[ -f "$rootfs/.dvp-rootfs-complete" ]]; then
    record PASS "minimal bookworm root (cached)" "$step_start" "$rootfs"
else
    rm -rf "$rootfs" "$rootfs.partial"
    include="$(IFS=,; echo "${packages[*]}")"
    echo "debootstrap --variant=minbase --include=$include $SUITE $rootfs.partial $MIRROR"
    if ! debootstrap --variant=minbase --include="$include" "$SUITE" "$rootfs.partial" "$MIRROR" \
        > "$rootfs.debootstrap.log" 2>&1; then
        tail -n 30 "$rootfs.debootstrap.log" >&2
        die "debootstrap failed (full log: $rootfs.debootstrap.log)"
    fi
    chroot "$rootfs.partial" groupadd --system --gid "$app_gid" dvp
    chroot "$rootfs.partial" useradd --system --uid "$app_uid" --gid dvp --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin dvp
    touch "$rootfs.partial/.dvp-rootfs-complete"
    mv "$rootfs.partial" "$rootfs"
    record PASS "minimal bookworm root (debootstrap, first run)" "$step_start" "$rootfs"
fi

# Every runtime package really is installed (debootstrap silently skips nothing, but make it explicit).
step_start=$(date +%s.%N)
missing=()
for package in "${packages[@]}"; do
    # shellcheck disable=SC2016 # ${Status} is dpkg-query's format syntax, not a shell expansion
    chroot "$rootfs" dpkg-query -W -f='${Status}' "$package" 2> /dev/null | grep -q 'install ok installed' \
        || missing+=("$package")
done
if ((${#missing[@]} == 0)); then
    record PASS "runtime packages installed in root" "$step_start" "${#packages[@]} packages"
else
    record FAIL "runtime packages installed in root" "$step_start" "missing: ${missing[*]}"
fi

# The binaries go to /usr/local/bin as in the image (the only part of the cached root this script rewrites).
for product in "${PRODUCTS[@]}"; do
    install -m 0755 "$bin_dir/$product" "$rootfs/usr/local/bin/$product"
done

# MARK: - Pod-like mounts (always undone)

workdir="$(mktemp -d /tmp/dvp-runtime-check.XXXXXX)"
jail="$workdir/root"
mounted=()
background_pids=()

cleanup() {
    local pid index
    for pid in "${background_pids[@]}"; do
        kill "$pid" 2> /dev/null || true
        wait "$pid" 2> /dev/null || true
    done
    for ((index = ${#mounted[@]} - 1; index >= 0; index--)); do
        umount "${mounted[index]}" 2> /dev/null || umount --lazy "${mounted[index]}" 2> /dev/null || true
    done
    rmdir "$jail" 2> /dev/null || true
    # Never delete through a mount that is still attached (it could reach the host's /dev or the root image).
    if grep -q " $workdir" /proc/self/mounts; then
        echo "warning: mounts remain under $workdir; leaving it in place" >&2
    else
        rm -rf --one-file-system "$workdir"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mount_tracked() { mount "$@"; mounted+=("${!#}"); }

mkdir -p "$jail"
mount_tracked --bind "$rootfs" "$jail"
mount --make-private "$jail"
mount -o remount,bind,ro "$jail"                                   # readOnlyRootFilesystem: true
mount_tracked -t tmpfs -o mode=1777,size=256m,nosuid,nodev tmpfs "$jail/tmp" # the /tmp emptyDir
mount_tracked -t proc -o nosuid,nodev,noexec proc "$jail/proc"
mount_tracked -t tmpfs -o mode=0755,size=64k,nosuid tmpfs "$jail/dev"
for node in null zero random urandom; do
    touch "$jail/dev/$node"
    mount_tracked --bind "/dev/$node" "$jail/dev/$node"
done

# "${jail_exec[@]}" CMD... runs CMD in the root as the image's user with a minimal, explicit environment (extra
# VAR=value words may precede CMD). An array, not a function, so `… &` gives the PID of the process itself.
jail_exec=(chroot --userspec="$app_uid:$app_gid" "$jail" /usr/bin/env -i
    PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 TZ=UTC)
in_jail() { "${jail_exec[@]}" "$@"; }

# Root-filesystem sanity: writes outside /tmp must fail, like in the pod.
step_start=$(date +%s.%N)
if in_jail /bin/sh -c 'touch /usr/local/bin/probe' 2> /dev/null; then
    record FAIL "root filesystem is read-only for the app user" "$step_start"
else
    record PASS "root filesystem is read-only for the app user" "$step_start"
fi

# MARK: - ldd: every shared library resolves inside the root

for product in "${PRODUCTS[@]}"; do
    step_start=$(date +%s.%N)
    ldd_output="$(chroot "$jail" /usr/bin/ldd "/usr/local/bin/$product" 2>&1)" || true
    if grep -q 'not found' <<< "$ldd_output"; then
        record FAIL "ldd $product" "$step_start" "$(grep 'not found' <<< "$ldd_output" | xargs)"
    elif ! grep -q '=>' <<< "$ldd_output"; then
        record FAIL "ldd $product" "$step_start" "unexpected ldd output: $(head -n 1 <<< "$ldd_output")"
    else
        record PASS "ldd $product" "$step_start" "$(grep -c '=>' <<< "$ldd_output") libraries resolved"
    fi
done

# MARK: - --help

implemented=()
for product in "${PRODUCTS[@]}"; do
    step_start=$(date +%s.%N)
    status=0
    help_output="$(in_jail timeout 20 "/usr/local/bin/$product" --help 2>&1)" || status=$?
    if grep -qi "$PLACEHOLDER_MARKER" <<< "$help_output"; then
        record SKIPPED "$product --help" "$step_start" "binary not implemented"
    elif ((status == 0)); then
        implemented+=("$product")
        record PASS "$product --help" "$step_start" "exit 0"
    else
        record FAIL "$product --help" "$step_start" "exit $status: $(head -n 3 <<< "$help_output" | xargs)"
    fi
done

# MARK: - Embedded-broker round trip

round_trip() {
    local bootstrap_file="$jail/tmp/bootstrap" brokers waited=0 expected counts_output status=0
    "${jail_exec[@]}" /usr/local/bin/devbroker --brokers 1 --topic "$TOPIC:3" --bootstrap-file /tmp/bootstrap \
        > "$workdir/devbroker.log" 2>&1 &
    background_pids+=("$!")
    until [[ -s "$bootstrap_file" ]]; do
        if ((waited++ >= 100)); then
            echo "devbroker wrote no bootstrap file in 20 s"
            cat "$workdir/devbroker.log"
            return 1
        fi
        sleep 0.2
    done
    brokers="$(head -n 1 "$bootstrap_file" | tr -d '[:space:]')"   # line 2 is devbroker's marker
    echo "devbroker at $brokers"

    # shellcheck disable=SC2086 # GENERATE_ARGS is a word list by design
    in_jail /usr/local/bin/producer generate $GENERATE_ARGS > "$jail/tmp/events.jsonl" || return 1
    [[ -s "$jail/tmp/events.jsonl" ]] || { echo "producer generate wrote nothing"; return 1; }
    in_jail /usr/local/bin/producer publish --brokers "$brokers" --topic "$TOPIC" /tmp/events.jsonl || return 1

    head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$jail/tmp/id-key"
    chmod 0444 "$jail/tmp/id-key"
    timeout 180 "${jail_exec[@]}" DVP_BROKERS="$brokers" DVP_TOPIC="$TOPIC" DVP_GROUP=runtime-image-check \
        DVP_STORE=sqlite:/tmp/obs.sqlite DVP_ID_KEY_FILE=/tmp/id-key DVP_HTTP_PORT=19464 DVP_START=earliest \
        DVP_X_SESSION_TIMEOUT_MS=6000 /usr/local/bin/worker --until-caught-up || status=$?
    ((status == 0)) || { echo "worker --until-caught-up exited $status"; return 1; }

    counts_output="$(in_jail /usr/local/bin/storectl counts --store sqlite:/tmp/obs.sqlite)" || return 1
    echo "$counts_output"
    # One stored Observation per distinct (patient, metric, day) among the generated events.
    expected="$(python3 -c 'import json, sys
print(len({(e["patient"], e["metric"], e["day"]) for e in map(json.loads, filter(str.strip, sys.stdin))}))' \
        < "$jail/tmp/events.jsonl")"
    grep -qw -- "$expected" <<< "$counts_output" \
        || { echo "storectl counts does not report the $expected expected observations"; return 1; }
}

step_start=$(date +%s.%N)
missing=()
for product in devbroker producer worker storectl; do
    [[ " ${implemented[*]} " == *" $product "* ]] || missing+=("$product")
done
if ((${#missing[@]} > 0)); then
    record SKIPPED "embedded-broker round trip" "$step_start" "binary not implemented: ${missing[*]}"
elif round_trip; then
    record PASS "embedded-broker round trip" "$step_start"
else
    record FAIL "embedded-broker round trip" "$step_start"
fi

# MARK: - Summary

echo
echo "check-runtime-image summary (root: $rootfs)"
printf '  %s\n' "${results[@]}"
echo "  total $(elapsed_since "$script_start")s"
if ((failures > 0)); then
    echo "FAILED: $failures check(s)"
    exit 1
fi
echo "OK"
