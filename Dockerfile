# syntax=docker/dockerfile:1
#
# daily-values-worker image: the `worker` (ENTRYPOINT), the `ingest` HTTP gateway (the chart's gateway Deployment runs
# it as its command) plus `producer`, `devbroker`, `storectl` and `dlq` for ops.
#
#   docker build -t daily-values-worker:dev .
#   docker run --rm daily-values-worker:dev --help
#
# The runtime package list below (ARG RUNTIME_PACKAGES in the runtime stage) is the single source of truth:
# scripts/build-image.sh builds this file with buildah (from locally made bookworm / Swift base images) and
# scripts/check-image.sh runs the result like a pod (read-only root, UID 10001) through a devbroker round trip.
#
# Size (docs/IMAGE.md has the measured options): 164.7 MB, of which the image adds 43.2 MB to its base (the budget
# scripts/check-image.sh enforces is 50 MB) — the Swift runtime once (17.2 MB: FoundationEssentials, no Foundation and
# no ICU), six binaries (12.3 MB) and the runtime packages (18.5 MB). It was 501.7 MB with six statically linked
# binaries of ~60 MB each.

ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# MARK: - Build stage

FROM ${SWIFT_IMAGE} AS build

# C libraries behind the .systemLibrary targets (CKafka, CPostgres, CSQLite, CCrypto, CMicroHTTPD, CCurl, CZlib,
# CZstd),
# found through pkg-config (the same list as scripts/install-deps.sh).
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        librdkafka-dev \
        libpq-dev \
        libsqlite3-dev \
        libssl-dev \
        libmicrohttpd-dev \
        libcurl4-openssl-dev \
        zlib1g-dev \
        libzstd-dev \
        pkg-config \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src

# The manifest, the sources and Tests/ (.dockerignore keeps charts, scripts and local state out of the context):
# Package.swift declares the test targets too and SwiftPM checks that their folders exist; only the shipped
# products are built.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests

# The Swift runtime is linked dynamically and shipped once (docs/IMAGE.md has the measured options): the binaries
# share one copy of the runtime libraries they load (ldd lists them), stripped, in /usr/lib/swift/linux — the
# binaries' RUNPATH, where the build base holds the toolchain. The C libraries stay dynamic too (Debian's shared
# objects, patched by Debian security updates in the runtime image). Binaries and runtime are stripped (install -s,
# strip --strip-unneeded: the worker 11.6 → 3.1 MB, the runtime libraries 25.2 → 17.2 MB); crash backtraces then show
# addresses rather than Swift symbol names. The worker, the gateway, storectl and dlq share most of their code: they
# are one multi-call binary, `dvp`, shipped once, with the four names linked to it (it runs as the name it is started
# by). A warning fails the build, as in the test command.
RUN --mount=type=cache,target=/src/.build \
    for product in dvp producer devbroker; do \
        swift build -c release -Xswiftc -warnings-as-errors --product "$product" || exit 1; \
    done \
    && bin="$(swift build -c release --show-bin-path)" \
    && runtime="$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift/linux" \
    && runtime="$(readlink -f "$runtime")" \
    && mkdir -p /staging/bin /staging/swift \
    && for product in dvp producer devbroker; do \
        install -s -m 0755 "$bin/$product" "/staging/bin/$product"; \
    done \
    && for name in worker ingest storectl dlq; do ln -s dvp "/staging/bin/$name"; done \
    && ldd /staging/bin/dvp /staging/bin/producer /staging/bin/devbroker \
        | awk -v dir="$runtime/" 'index($3, dir) == 1 { print $3 }' | sort -u > /staging/libs \
    && test -s /staging/libs \
    && while read -r lib; do strip --strip-unneeded -o "/staging/swift/${lib##*/}" "$lib" || exit 1; done < /staging/libs \
    && echo "Swift runtime shipped: $(cd /staging/swift && ls | xargs)"

# MARK: - Runtime stage

FROM ${RUNTIME_IMAGE} AS runtime

# Exactly what the binaries load (checked with ldd): the eight C libraries (zlib: the gateway's gzip bodies; zstd: stored documents), the C++
# runtime and libgcc_s that the Swift runtime libraries need, zone data (tzdata's TZif files,
# read by ZoneRules for DST-correct local days) and CA certificates for Kafka/PostgreSQL/FHIR-server TLS. Transitive libraries (libsasl2, liblz4, krb5, ...)
# come in as dependencies of these packages.
ARG RUNTIME_PACKAGES="\
    ca-certificates \
    libcurl4 \
    libgcc-s1 \
    libmicrohttpd12 \
    libpq5 \
    librdkafka1 \
    libsqlite3-0 \
    libssl3 \
    libstdc++6 \
    libzstd1 \
    tzdata \
    zlib1g"

# Their documentation, manual pages and translations are left out, as debian:bookworm-slim's own
# /etc/dpkg/dpkg.cfg.d/docker does (the debootstrap stand-in lacks it); each package's copyright file stays.
RUN printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
        'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*' 'path-exclude=/usr/share/locale/*' \
        'path-exclude=/usr/share/lintian/*' > /etc/dpkg/dpkg.cfg.d/dvp-slim \
    && apt-get update \
    && apt-get install -y --no-install-recommends ${RUNTIME_PACKAGES} \
    && rm -rf /var/lib/apt/lists/*

# Fixed, non-root UID/GID (the Helm chart's securityContext uses the same numbers).
ARG APP_UID=10001
ARG APP_GID=10001
RUN groupadd --system --gid "${APP_GID}" dvp \
    && useradd --system --uid "${APP_UID}" --gid dvp --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin dvp

COPY --from=build /staging/bin/ /usr/local/bin/
# Where the binaries' RUNPATH looks first (the toolchain's runtime directory in the build base).
COPY --from=build /staging/swift/ /usr/lib/swift/linux/

ARG VERSION=dev
ARG REVISION=unknown
# An ARG before the first FROM is not visible in a stage until declared again (else the label below is empty).
ARG RUNTIME_IMAGE
LABEL org.opencontainers.image.title="daily-values-worker" \
      org.opencontainers.image.description="Kafka consumer-group worker: HealthKit daily values to FHIR R4 Observations, version-guarded upserts into SQLite or PostgreSQL" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="${RUNTIME_IMAGE}"

# Writable scratch only under /tmp (an emptyDir in Kubernetes; the root filesystem is mounted read-only there).
WORKDIR /tmp
USER ${APP_UID}:${APP_GID}

# The worker's /metrics, /healthz, /readyz (DVP_HTTP_PORT); the gateway's POST /v1/daily-values and the same three
# (ingest --http-port). No HEALTHCHECK: Kubernetes probes the HTTP endpoints instead.
EXPOSE 9464 8080
# The worker drains on SIGTERM within --drain-timeout, then leaves the consumer group and exits 0.
STOPSIGNAL SIGTERM
# The worker refuses to start without an id key (DVP_ID_KEY_FILE, mounted from a Secret, or DVP_ID_KEY).
ENTRYPOINT ["/usr/local/bin/worker"]
