#!/usr/bin/env bash
# check-image.sh — runs the image scripts/build-image.sh built, the way a pod runs it, without a Docker engine.
#
# What it does:
#   1. Creates a buildah container from the image (DVP_IMAGE, default localhost/daily-values-worker:dev) and mounts
#      its root filesystem; reads the user and entrypoint from the image's config (they must be 10001:10001 and
#      /usr/local/bin/worker, as the chart's securityContext and command assume).
#   2. Checks that every package of the Dockerfile's ARG RUNTIME_PACKAGES is installed in it.
#   3. Runs every check inside a chroot of that root that looks like the pod: the root is a read-only bind mount,
#      /tmp is a tmpfs (the emptyDir), /proc is mounted and /dev holds only null/zero/random/urandom; processes run
#      as the image's UID:GID with an empty environment.
#   4. Checks: `ldd` of every binary (any "not found" fails), `<binary> --help` exits 0, and an embedded-broker
#      round trip: devbroker → producer generate → the first half published by `producer publish`, the second half
#      POSTed to the image's `ingest` gateway (an API key file as the chart mounts it; 202 expected, its /readyz
#      first) → worker --until-caught-up into SQLite → storectl counts every (patient, metric, day) of both halves →
#      the gateway stops on SIGTERM with exit 0. Named zones are proven in the image: a Lord Howe (23.5-hour), a
#      Kathmandu (+05:45) and a St John's (23-hour, −03:30) day go through both the producer and the gateway, and
#      `storectl show` must print each day's effectivePeriod with its offsets (zones come from the image's tzdata).
#   5. Reports the image's size, what it adds to its runtime base (the image's base.name annotation), the size of
#      each binary and of the shipped Swift runtime, and fails when the image adds more than DVP_IMAGE_BUDGET_MB.
#   (buildah's own `run --isolation chroot` cannot keep the root read-only: it writes /run/.containerenv into it, so
#   the chroot is set up here.)
#
# Usage: scripts/check-image.sh
# Environment: DVP_IMAGE, DVP_IMAGE_CACHE (see scripts/image-common.sh), DVP_DOCKERFILE (default ./Dockerfile),
#              DVP_CHECK_GENERATE_ARGS (arguments of `producer generate`, default below),
#              DVP_IMAGE_BUDGET_MB (decimal MB the image may add to its base, default below).
# Needs: root, buildah, curl, the image built by scripts/build-image.sh.
set -euo pipefail

# MARK: - Settings

ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT_DIR
# shellcheck source=scripts/image-common.sh
source "$ROOT_DIR/scripts/image-common.sh"
readonly DOCKERFILE="${DVP_DOCKERFILE:-$ROOT_DIR/Dockerfile}"
readonly PRODUCTS=(worker ingest producer devbroker storectl dlq)
readonly INGEST_PORT=18080 INGEST_ADMIN_PORT=18081
readonly TOPIC=daily-values
readonly GENERATE_ARGS="${DVP_CHECK_GENERATE_ARGS:---patients 20 --days 7 --seed 42 --out -}"
# What the image may add to its runtime base, in decimal MB (issue 41; docs/IMAGE.md: it adds 48.0 MB). A shipped
# target that imports Foundation again brings ICU back (+47.6 MB) and fails this.
readonly IMAGE_BUDGET_MB="${DVP_IMAGE_BUDGET_MB:-50}"
# Named-zone days proven in the image: zone, day, the effectivePeriod's start and end (docs/CLINICAL.md's DST days).
readonly ZONE_DAYS=(
    "Australia/Lord_Howe 2025-10-05 2025-10-05T00:00:00+10:30 2025-10-06T00:00:00+11:00"
    "Asia/Kathmandu 2025-10-01 2025-10-01T00:00:00+05:45 2025-10-02T00:00:00+05:45"
    "America/St_Johns 2025-03-09 2025-03-09T00:00:00-03:30 2025-03-10T00:00:00-02:30"
)

for arg in "$@"; do
    case "$arg" in
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument: $arg" >&2; exit 2 ;;
    esac
done

# MARK: - Reporting

results=()
failures=0
script_start=$(date +%s.%N)

# record STATUS NAME START [DETAIL]
record() {
    local status="$1" name="$2" seconds
    seconds="$(seconds_since "$3")"
    results+=("$(printf '%-8s %7ss  %s%s' "$status" "$seconds" "$name" "${4:+ — $4}")")
    printf '==> %s %s (%ss)%s\n' "$status" "$name" "$seconds" "${4:+ — $4}"
    if [[ "$status" == FAIL ]]; then failures=$((failures + 1)); fi
}

die() { echo "check-image: $*" >&2; exit 1; }

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

image_require_root
image_exists "$IMAGE_NAME" || die "no image $IMAGE_NAME: run scripts/build-image.sh first"
read -r -a packages <<< "$(dockerfile_arg RUNTIME_PACKAGES)"
((${#packages[@]} > 0)) || die "ARG RUNTIME_PACKAGES in $DOCKERFILE is empty"
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)

# MARK: - The image's root filesystem and config

step_start=$(date +%s.%N)
container="$(bh from --quiet "$IMAGE_NAME")"
trap 'bh rm "$container" > /dev/null 2>&1 || true' EXIT # replaced by cleanup below, which removes it too
rootfs="$(bh mount "$container")"
user="$(bh inspect --format '{{.OCIv1.Config.User}}' "$container")"
entrypoint="$(bh inspect --format '{{.OCIv1.Config.Entrypoint}}' "$container")"
app_uid="${user%%:*}" app_gid="${user#*:}"
if [[ "$user" == "$(dockerfile_arg APP_UID):$(dockerfile_arg APP_GID)" && "$user" == 10001:10001 \
    && "$entrypoint" == '[/usr/local/bin/worker]' ]]; then
    record PASS "image config: user $user, entrypoint $entrypoint" "$step_start" "$IMAGE_NAME"
else
    record FAIL "image config: user $user, entrypoint $entrypoint" "$step_start" "expected 10001:10001, worker"
fi

# MARK: - Size: the image, its base, what it adds

# layer_bytes IMAGE prints the sum of the image's layer sizes (uncompressed tar bytes, as `buildah images` counts).
layer_bytes() {
    bh inspect --type image "$1" | python3 -c 'import json, sys
print(sum(layer["size"] for layer in json.loads(json.load(sys.stdin)["Manifest"])["layers"]))'
}

step_start=$(date +%s.%N)
base_image="$(bh inspect --type image "$IMAGE_NAME" | python3 -c 'import json, sys
print(json.loads(json.load(sys.stdin)["Manifest"]).get("annotations", {}).get("org.opencontainers.image.base.name", ""))')"
image_bytes="$(layer_bytes "$IMAGE_NAME")"
if [[ -n "$base_image" ]] && image_exists "$base_image"; then
    base_bytes="$(layer_bytes "$base_image")"
    added_bytes=$((image_bytes - base_bytes))
    size_detail="$(awk -v i="$image_bytes" -v b="$base_bytes" -v a="$added_bytes" -v budget="$IMAGE_BUDGET_MB" \
        'BEGIN { printf "image %.1f MB = base %.1f MB + %.1f MB added (budget %d MB)", i / 1e6, b / 1e6, a / 1e6, budget }')"
    if ((added_bytes <= IMAGE_BUDGET_MB * 1000000)); then
        record PASS "image size" "$step_start" "$size_detail"
    else
        record FAIL "image size" "$step_start" "$size_detail"
    fi
else
    record FAIL "image size" "$step_start" "no base image '$base_image' to compare with: run scripts/build-image.sh"
fi
# Where the added bytes are: each binary and the shipped Swift runtime (the rest: RUNTIME_PACKAGES).
(cd "$rootfs" && du -b usr/local/bin/* usr/lib/swift/linux 2> /dev/null | sort -rn \
    | awk '{ printf "  %8.1f MB  /%s\n", $1 / 1e6, $2 }')

# Every runtime package of the Dockerfile really is installed in the image.
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
    bh rm "$container" > /dev/null 2>&1 || true
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

for product in "${PRODUCTS[@]}"; do
    step_start=$(date +%s.%N)
    status=0
    help_output="$(in_jail timeout 20 "/usr/local/bin/$product" --help 2>&1)" || status=$?
    if ((status == 0)); then
        record PASS "$product --help" "$step_start" "exit 0"
    else
        record FAIL "$product --help" "$step_start" "exit $status: $(head -n 3 <<< "$help_output" | xargs)"
    fi
done

# MARK: - Embedded-broker round trip

# post_through_gateway BROKERS: runs the image's `ingest` like the chart's gateway pod (an API key file, --drain-timeout,
# the ports as DVP_HTTP_PORT and DVP_ADMIN_PORT), waits for /readyz on the admin port, POSTs /tmp/posted.jsonl as NDJSON (202 expected), then stops it with
# SIGTERM (exit 0 expected).
post_through_gateway() {
    local brokers="$1" key status=0 waited=0 answer pid
    key="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
    printf 'sha256:%s  tenant=image-check  patients=*  access=all-patients\n' "$(printf %s "$key" | sha256sum | cut -d' ' -f1)" \
        > "$jail/tmp/api-keys"
    chmod 0444 "$jail/tmp/api-keys"
    "${jail_exec[@]}" DVP_BROKERS="$brokers" DVP_TOPIC="$TOPIC" DVP_HTTP_PORT="$INGEST_PORT" \
        DVP_HTTP_ADDRESS=127.0.0.1 DVP_ADMIN_PORT="$INGEST_ADMIN_PORT" DVP_ADMIN_ADDRESS=127.0.0.1 \
        DVP_API_KEYS=/tmp/api-keys /usr/local/bin/ingest --drain-timeout 10 \
        > "$workdir/ingest.log" 2>&1 &
    pid=$!
    background_pids+=("$pid")
    until curl -fsS -o /dev/null "http://127.0.0.1:$INGEST_ADMIN_PORT/readyz" 2> /dev/null; do
        if ((waited++ >= 100)) || ! kill -0 "$pid" 2> /dev/null; then
            echo "the gateway was not ready in 20 s"
            cat "$workdir/ingest.log"
            return 1
        fi
        sleep 0.2
    done
    answer="$(curl -sS -o "$workdir/ingest-answer.json" -w '%{http_code}' -H "Authorization: Bearer $key" \
        -H 'Content-Type: application/x-ndjson' --data-binary "@$jail/tmp/posted.jsonl" \
        "http://127.0.0.1:$INGEST_PORT/v1/daily-values")" || answer="curl failed"
    echo "gateway answered $answer to $(wc -l < "$jail/tmp/posted.jsonl") records: $(head -c 300 "$workdir/ingest-answer.json")"
    [[ "$answer" == 202 ]] || { cat "$workdir/ingest.log"; return 1; }
    kill -TERM "$pid"
    wait "$pid" || status=$?
    ((status == 0)) || { echo "the gateway exited $status on SIGTERM"; cat "$workdir/ingest.log"; return 1; }
}

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
    local lines half
    lines="$(wc -l < "$jail/tmp/events.jsonl")" half=$(((lines + 1) / 2))
    head -n "$half" "$jail/tmp/events.jsonl" > "$jail/tmp/published.jsonl"
    tail -n +"$((half + 1))" "$jail/tmp/events.jsonl" > "$jail/tmp/posted.jsonl"
    # The named-zone days, once through the producer (patient p-zone-a) and once through the gateway (p-zone-b).
    zone_events p-zone-a >> "$jail/tmp/published.jsonl"
    zone_events p-zone-b >> "$jail/tmp/posted.jsonl"
    { zone_events p-zone-a; zone_events p-zone-b; } >> "$jail/tmp/events.jsonl"
    in_jail /usr/local/bin/producer publish --brokers "$brokers" --topic "$TOPIC" /tmp/published.jsonl || return 1
    post_through_gateway "$brokers" || return 1

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
    check_zone_days
}

# zone_events PATIENT prints one steps event per named-zone day of ZONE_DAYS.
zone_events() {
    local entry zone day
    for entry in "${ZONE_DAYS[@]}"; do
        read -r zone day _ <<< "$entry"
        printf '{"schema":1,"patient":"%s","metric":"steps","day":"%s","timeZone":"%s","value":4321,"version":1}\n' \
            "$1" "$day" "$zone"
    done
}

# check_zone_days: every named-zone day, from either path, is stored with its effectivePeriod's offsets.
check_zone_days() {
    local entry zone day start end patient resource
    for entry in "${ZONE_DAYS[@]}"; do
        read -r zone day start end <<< "$entry"
        for patient in p-zone-a p-zone-b; do
            resource="$(in_jail /usr/local/bin/storectl show --store sqlite:/tmp/obs.sqlite "$patient/steps/$day")" \
                || { echo "no Observation for $patient/steps/$day ($zone)"; return 1; }
            if ! grep -qF "\"start\":\"$start\"" <<< "$resource" || ! grep -qF "\"end\":\"$end\"" <<< "$resource"; then
                echo "$zone $day ($patient): expected effectivePeriod $start – $end, stored: $resource"
                return 1
            fi
        done
        echo "$zone $day: effectivePeriod $start – $end (producer and gateway)"
    done
}

step_start=$(date +%s.%N)
if round_trip; then
    record PASS "embedded-broker round trip, named zones" "$step_start"
else
    record FAIL "embedded-broker round trip, named zones" "$step_start"
fi

# MARK: - Summary

echo
echo "check-image summary ($IMAGE_NAME, $(bh images --format '{{.Size}}' "$IMAGE_NAME" | head -n 1))"
printf '  %s\n' "${results[@]}"
echo "  total $(seconds_since "$script_start")s"
if ((failures > 0)); then
    echo "FAILED: $failures check(s)"
    exit 1
fi
echo "OK"
