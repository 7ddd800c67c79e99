# shellcheck shell=bash
# Shared by scripts/build-image.sh and scripts/check-image.sh (sourced, not run): buildah settings and helpers.
#
# buildah runs as root with chroot isolation and the vfs storage driver (OCI isolation does not work on these
# machines). Its storage lives under DVP_IMAGE_CACHE (default /var/tmp/dvp-buildah), so the base images and the
# built image survive across runs on one machine; a fresh machine builds everything once.

readonly IMAGE_CACHE="${DVP_IMAGE_CACHE:-/var/tmp/dvp-buildah}"
readonly IMAGE_NAME="${DVP_IMAGE:-localhost/daily-values-worker:dev}"

# bh ARGS… runs buildah on the project's storage.
bh() {
    buildah --root "$IMAGE_CACHE/storage" --runroot "$IMAGE_CACHE/run" --storage-driver vfs "$@"
}

image_die() { echo "${0##*/}: $*" >&2; exit 1; }

image_require_root() {
    [[ $EUID -eq 0 ]] || image_die "must run as root (buildah with chroot isolation, debootstrap, mount)"
    command -v buildah > /dev/null || image_die "buildah is not installed (DVP_WITH_IMAGE=1 scripts/install-deps.sh)"
}

# image_exists NAME succeeds when the project's storage holds the image.
image_exists() { bh inspect --type image "$1" > /dev/null 2>&1; }

# seconds_since START (from `date +%s.%N`) prints the elapsed seconds with one decimal.
seconds_since() { awk -v start="$1" -v end="$(date +%s.%N)" 'BEGIN { printf "%.1f", end - start }'; }
