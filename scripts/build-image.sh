#!/usr/bin/env bash
# build-image.sh — builds the repository's Dockerfile with buildah (no Docker engine), from base images made here.
#
#   1. Runtime base (RUNTIME_IMAGE): a debootstrap'd Debian bookworm (--variant=minbase), the stand-in for
#      debian:bookworm-slim. Cached in buildah's storage, keyed by suite, mirror and architecture.
#   2. Build base (SWIFT_IMAGE): the runtime base plus the toolchain's own Debian dependencies and the Swift toolchain
#      installed on this machine (`which swift` → its usr/ tree, copied to /usr as in the official swift images;
#      debugger, IDE and embedded-Swift parts left out). Keyed by the runtime base, `swift --version` and this list.
#   3. `buildah bud` of ./Dockerfile with SWIFT_IMAGE / RUNTIME_IMAGE pointing at those: the build stage really runs
#      (apt-get of the -dev packages, `swift build -c release --static-swift-stdlib`), the runtime stage installs
#      RUNTIME_PACKAGES and copies the six binaries (worker, ingest, producer, devbroker, storectl, dlq). The
#      Dockerfile's cache mount (/src/.build) lives under /var/tmp on this machine, so a second build only recompiles
#      what changed.
#   Prints the timing of each step and the image size.
#
# Usage: scripts/build-image.sh [--rebuild-bases] [--no-cache]
# Environment: DVP_IMAGE (default localhost/daily-values-worker:dev), DVP_IMAGE_CACHE (default /var/tmp/dvp-buildah),
#              DVP_DEBIAN_MIRROR (default http://deb.debian.org/debian).
# Needs: root, buildah, debootstrap, the Debian mirror (network) for the bases and the Dockerfile's apt-get steps.
set -euo pipefail

ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT_DIR
# shellcheck source=scripts/image-common.sh
source "$ROOT_DIR/scripts/image-common.sh"

readonly SUITE=bookworm
readonly MIRROR="${DVP_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# What the toolchain itself loads or links with (ldd of swift-frontend, swift-package, clang, lld, the Foundation
# libraries; crt files and libraries of the C/C++ runtime), as in the official swift:bookworm image.
readonly TOOLCHAIN_PACKAGES=(binutils libc6-dev libgcc-12-dev libstdc++-12-dev libcurl4 libxml2 libedit2 libncurses6
    libsqlite3-0 libuuid1 zlib1g-dev tzdata ca-certificates)
# Parts of the toolchain a `swift build` never runs: debugger, language servers, docs, embedded-Swift libraries.
readonly TOOLCHAIN_EXCLUDES=(./bin/lldb ./bin/lldb-argdumper ./bin/lldb-dap ./bin/lldb-server ./bin/sourcekit-lsp
    ./bin/clangd ./bin/docc ./bin/swift-format ./bin/wasmkit ./bin/repl_swift './lib/liblldb.so*'
    ./lib/libsourcekitdInProc.so './lib/libSwiftSourceKit*' ./lib/swift/embedded ./share/docc ./share/doc)

rebuild_bases=false
no_cache=()
for arg in "$@"; do
    case "$arg" in
        --rebuild-bases) rebuild_bases=true ;;
        --no-cache) no_cache=(--no-cache) ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument: $arg" >&2; exit 2 ;;
    esac
done

image_require_root
command -v debootstrap > /dev/null || image_die "debootstrap is not installed"
swift_bin="$(command -v swift)" || image_die "no swift on PATH"
toolchain_usr="$(dirname "$(dirname "$(readlink -f "$swift_bin")")")"
[[ -x "$toolchain_usr/bin/swift-frontend" ]] || image_die "no toolchain usr/ tree at $toolchain_usr"
mkdir -p "$IMAGE_CACHE"
exec 9> "$IMAGE_CACHE/build.lock"
flock 9 # one build at a time per machine (shared storage and cache mount)
started=$(date +%s.%N)

key() { printf '%s\n' "$@" | sha256sum | cut -c1-12; }
runtime_base="localhost/dvp-base/bookworm:$(key "$SUITE" "$MIRROR" "$(dpkg --print-architecture)" minbase v2)"
swift_version="$(swift --version 2>&1 | head -n 1)"
build_base="localhost/dvp-base/swift-bookworm:$(key "$runtime_base" "$swift_version" "$toolchain_usr" \
    "${TOOLCHAIN_PACKAGES[@]}" "${TOOLCHAIN_EXCLUDES[@]}" v1)"
if [[ "$rebuild_bases" == true ]]; then
    bh rmi -f "$runtime_base" "$build_base" > /dev/null 2>&1 || true
fi

# MARK: - Runtime base: debootstrap → scratch container → image

if image_exists "$runtime_base"; then
    echo "==> runtime base $runtime_base (cached)"
else
    step=$(date +%s.%N)
    rootfs="$(mktemp -d "$IMAGE_CACHE/rootfs.XXXXXX")"
    trap 'rm -rf --one-file-system "$rootfs"' EXIT
    echo "==> debootstrap --variant=minbase $SUITE ($MIRROR)"
    if ! debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" > "$IMAGE_CACHE/debootstrap.log" 2>&1; then
        tail -n 30 "$IMAGE_CACHE/debootstrap.log" >&2
        image_die "debootstrap failed (log: $IMAGE_CACHE/debootstrap.log)"
    fi
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    # As in Debian's official images: apt deletes downloaded packages after installing them (else every
    # `apt-get install` in the Dockerfile leaves its .deb files and caches in the image).
    cat > "$rootfs/etc/apt/apt.conf.d/docker-clean" << 'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    container="$(bh from scratch)"
    mountpoint="$(bh mount "$container")"
    cp -a "$rootfs/." "$mountpoint/"
    bh umount "$container" > /dev/null
    bh config --os linux --arch "$(dpkg --print-architecture)" --cmd /bin/bash \
        --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        --label "org.opencontainers.image.description=debootstrap --variant=minbase $SUITE" "$container"
    bh commit --quiet --rm "$container" "$runtime_base" > /dev/null
    rm -rf --one-file-system "$rootfs"
    trap - EXIT
    echo "==> runtime base $runtime_base built in $(seconds_since "$step")s"
fi

# MARK: - Build base: runtime base + toolchain dependencies + the installed toolchain

if image_exists "$build_base"; then
    echo "==> build base $build_base (cached)"
else
    step=$(date +%s.%N)
    container="$(bh from --quiet "$runtime_base")"
    bh run --isolation chroot "$container" -- sh -c "apt-get update -qq \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${TOOLCHAIN_PACKAGES[*]} \
            > /dev/null && rm -rf /var/lib/apt/lists/*"
    mountpoint="$(bh mount "$container")"
    exclude_args=()
    for pattern in "${TOOLCHAIN_EXCLUDES[@]}"; do exclude_args+=(--exclude="$pattern"); done
    echo "==> copying the toolchain $toolchain_usr → /usr"
    tar -C "$toolchain_usr" -cf - "${exclude_args[@]}" . | tar -C "$mountpoint/usr" -xf - --keep-directory-symlink
    bh umount "$container" > /dev/null
    bh run --isolation chroot "$container" -- swift --version
    bh config --label "org.opencontainers.image.description=$SUITE + $swift_version" "$container"
    bh commit --quiet --rm "$container" "$build_base" > /dev/null
    echo "==> build base $build_base built in $(seconds_since "$step")s"
fi

# Base images of earlier keys (another toolchain, mirror or package list) are not used again: free their space.
bh images --format '{{.Name}}:{{.Tag}}' | grep -E '^localhost/dvp-base/' | grep -vxF -e "$runtime_base" -e "$build_base" \
    | while read -r stale; do bh rmi "$stale" > /dev/null && echo "==> removed stale base $stale"; done || true

# MARK: - The Dockerfile

step=$(date +%s.%N)
echo "==> buildah bud $ROOT_DIR/Dockerfile → $IMAGE_NAME"
bh bud --isolation chroot --layers=false "${no_cache[@]}" \
    --build-arg SWIFT_IMAGE="$build_base" --build-arg RUNTIME_IMAGE="$runtime_base" \
    --build-arg VERSION="$(git -C "$ROOT_DIR" describe --always --dirty 2> /dev/null || echo dev)" \
    --build-arg REVISION="$(git -C "$ROOT_DIR" rev-parse HEAD 2> /dev/null || echo unknown)" \
    --file "$ROOT_DIR/Dockerfile" --tag "$IMAGE_NAME" "$ROOT_DIR" 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\] (Compiling|Write|Emitting)'
echo "==> image built in $(seconds_since "$step")s"
bh images --filter "reference=$IMAGE_NAME" --format 'image {{.Name}}:{{.Tag}}  {{.Size}}'
echo "==> build-image total $(seconds_since "$started")s"
