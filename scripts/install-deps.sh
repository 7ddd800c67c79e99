#!/usr/bin/env bash
# Installs the Debian packages the project builds, tests and runs with (idempotent; does nothing when all present).
# The Swift 6 toolchain itself is expected on PATH (it is not a Debian package).
set -euo pipefail

packages=(
    librdkafka-dev libpq-dev libsqlite3-dev libssl-dev libmicrohttpd-dev libcurl4-openssl-dev zlib1g-dev libzstd-dev pkg-config # C libraries behind the system-library targets
    postgresql-15 postgresql-client-15                                 # the real PostgreSQL the tests start
    zstd liblz4-dev                                                    # bench/compression.sh, scripts/train-document-dictionary.sh
    kcat sqlite3 tzdata ca-certificates procps curl perl openssl nghttp2-server        # kcat: independent Kafka client; openssl, nghttpd: TLS and HTTP/2 tests
    python3 python3-venv                                               # test-only tools (FHIR validators, chart checks)
    prometheus                                                         # promtool: alert rule checks and unit tests
)
# The image build (scripts/build-image.sh): buildah with chroot isolation, debootstrap for the base images.
if [[ "${DVP_WITH_IMAGE:-0}" == 1 ]]; then packages+=(buildah debootstrap); fi
# bench/ingest.sh: wrk (the load generator) and the Python peer gateway's packages (../shared/bench/peer/peer_gateway.py).
if [[ "${DVP_WITH_BENCH_PEERS:-0}" == 1 ]]; then packages+=(wrk python3-fastapi python3-uvicorn python3-confluent-kafka); fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "install-deps: installing ${missing[*]}" >&2
    sudo_cmd=()
    [[ $(id -u) == 0 ]] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
command -v swift >/dev/null || { echo "install-deps: the Swift 6 toolchain (swift) is not on PATH" >&2; exit 1; }
