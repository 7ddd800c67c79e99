// swift-tools-version:6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "daily-values-pipeline",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "DailyValueContract", targets: ["DailyValueContract"]),
        .library(name: "ObservationUpsert", targets: ["ObservationUpsert"]),
        .library(name: "Kafka", targets: ["Kafka"]),
        .library(name: "Producer", targets: ["Producer"]),
        .executable(name: "worker", targets: ["Worker"]),
        .executable(name: "producer", targets: ["ProducerCLI"]),
        .executable(name: "devbroker", targets: ["DevBroker"]),
        .executable(name: "storectl", targets: ["StoreCtl"]),
        .executable(name: "dlq", targets: ["DLQ"]),
        .executable(name: "ingest", targets: ["Ingest"]),
    ],
    targets: [
        // MARK: - C system libraries (Debian -dev packages)
        .systemLibrary(name: "CKafka", pkgConfig: "rdkafka", providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        /// glibc's `mallopt` (part of libc: nothing to link), for the worker's memory settings at start.
        .systemLibrary(name: "CMalloc"),

        // MARK: - Foundations (no C library, or one C library each)
        /// Small helpers every target may import (Duration conversions, serial-queue confinement); no C library.
        .target(name: "Essentials", swiftSettings: swiftSettings),
        /// glibc malloc settings for the worker process (arenas, trimming); CMalloc only.
        .target(name: "MallocTuning", dependencies: ["CMalloc", "Essentials"], swiftSettings: swiftSettings),
        /// SHA-256, HMAC-SHA256 and RS256/ES256 signature verification over libcrypto.
        .target(name: "Hashing", dependencies: ["CCrypto"], swiftSettings: swiftSettings),
        /// The only importers of CSQLite / CPostgres: connections, statements, results, typed errors.
        .target(name: "SQLiteClient", dependencies: ["CSQLite", "Essentials"], swiftSettings: swiftSettings),
        .target(name: "PostgresClient", dependencies: ["CPostgres", "Essentials"], swiftSettings: swiftSettings),
        /// The only importer of CCurl: kept-alive HTTP/1.1 and HTTP/2 connections, TLS, timeouts, typed errors.
        .target(name: "HTTPClient", dependencies: ["CCurl", "Essentials"], swiftSettings: swiftSettings),
        /// The only importer of CMicroHTTPD: a hardened HTTP/1.1 server (limits, request bodies, typed errors).
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "Essentials"], swiftSettings: swiftSettings),
        /// The only importer of CZlib: gzip request bodies inflated up to a limit (a bomb stops at the limit).
        .target(name: "Gzip", dependencies: ["CZlib"], swiftSettings: swiftSettings),
        /// The only importer of CZstd: stored FHIR documents compressed with a shipped dictionary (~110 bytes each).
        .target(name: "DocumentCompression", dependencies: ["CZstd", "Essentials"], swiftSettings: swiftSettings),

        // MARK: - Libraries
        /// The DailyValue event contract, its JSON scanner and writer, and the metric catalog; no C library.
        .target(name: "DailyValueContract", dependencies: ["Essentials"], swiftSettings: swiftSettings),
        /// One command-line parser for every executable: flags, environment twins, help text, exit status 2.
        .target(name: "CommandLineOptions", dependencies: ["Essentials"], swiftSettings: swiftSettings),
        /// The services' JSON-lines logger, Prometheus registry (each process declares its families) and signal stream.
        .target(name: "Observability", dependencies: ["DailyValueContract", "Essentials"], swiftSettings: swiftSettings),
        /// SplitMix64, the one seeded generator (the event generator and the tests).
        .target(name: "SeededRandom", swiftSettings: swiftSettings),
        /// The ingest gateway's credentials: bearer tokens (API keys, JWTs) to the scope they grant.
        .target(
            name: "IngestAuth", dependencies: ["Hashing", "Essentials", "DailyValueContract"],
            swiftSettings: swiftSettings),
        /// FHIR mapping and the stores (the only code with SQL or FHIR REST); re-exports DailyValueContract.
        .target(
            name: "ObservationUpsert",
            dependencies: [
                "DailyValueContract", "DocumentCompression", "Essentials", "Hashing", "SQLiteClient", "PostgresClient",
                "HTTPClient",
            ],
            swiftSettings: swiftSettings
        ),
        /// The `--fhir-*` flags and the FHIR store configuration they make, defined once (worker and storectl).
        .target(
            name: "StoreOptions",
            dependencies: ["CommandLineOptions", "ObservationUpsert", "HTTPClient", "Essentials"],
            swiftSettings: swiftSettings),
        .target(name: "Kafka", dependencies: ["CKafka", "Essentials"], swiftSettings: swiftSettings),
        .target(
            name: "Producer", dependencies: ["Kafka", "DailyValueContract", "SeededRandom", "Hashing"],
            swiftSettings: swiftSettings
        ),
        /// The dead-letter record format (header names, shared with the worker), statistics and redrive planning.
        .target(
            name: "DeadLetters", dependencies: ["Kafka", "DailyValueContract", "Essentials", "Hashing"],
            swiftSettings: swiftSettings),
        /// The HTTP ingest gateway: configuration, routes, body decoding, validation with the workers' decoder,
        /// publishing through the Producer library, backpressure, idempotency, metrics.
        .target(
            name: "IngestGateway",
            dependencies: [
                "CommandLineOptions", "DailyValueContract", "Essentials", "Gzip", "Hashing", "HTTPServer",
                "IngestAuth", "Kafka", "Observability", "Producer",
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "BulkExport", dependencies: ["Essentials", "Hashing"], swiftSettings: swiftSettings),
        .target(
            name: "WorkerCore",
            dependencies: [
                "CommandLineOptions", "Kafka", "ObservationUpsert", "Essentials", "Hashing", "HTTPServer",
                "StoreOptions", "DeadLetters", "Observability",
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - Executables
        .executableTarget(
            name: "Worker", dependencies: ["CommandLineOptions", "MallocTuning", "WorkerCore"],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "ProducerCLI", dependencies: ["CommandLineOptions", "Producer", "DailyValueContract", "Essentials"],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "DevBroker", dependencies: ["CommandLineOptions", "Essentials", "Kafka"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "DLQ",
            dependencies: ["CommandLineOptions", "DeadLetters", "DailyValueContract", "Kafka", "HTTPClient"],
            swiftSettings: swiftSettings),
        .executableTarget(name: "Ingest", dependencies: ["IngestGateway"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "StoreCtl", dependencies: ["BulkExport", "CommandLineOptions", "ObservationUpsert", "StoreOptions"],
            swiftSettings: swiftSettings),

        // MARK: - Tests
        // Test-only helper processes (`dvp-test-tools race`): built with the package, not a product, never shipped.
        .executableTarget(
            name: "dvp-test-tools",
            dependencies: [
                "CommandLineOptions", "ObservationUpsert", "SeededRandom", "HTTPClient", "DocumentCompression",
            ],
            path: "Tests/TestTools", exclude: ["fhir_double.py"], swiftSettings: swiftSettings
        ),
        // The worker with the reliability suite's crash points (`DVP_CRASH_AT`): built for the tests, never shipped.
        .executableTarget(
            name: "dvp-fault-worker", dependencies: ["WorkerCore", "MallocTuning", "ObservationUpsert", "TestSupport"],
            path: "Tests/FaultWorker", swiftSettings: swiftSettings),
        // Shared by the test targets only: child processes, PostgreSQL, brokers, paths, seeded random, polling.
        .target(
            name: "TestSupport", dependencies: ["Essentials", "Kafka", "SeededRandom", "HTTPClient"],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ObservationUpsertTests",
            dependencies: [
                "ObservationUpsert", "SQLiteClient", "PostgresClient", "HTTPClient", "Essentials", "TestSupport",
                "DocumentCompression", "Hashing", "BulkExport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CommandLineOptionsTests", dependencies: ["CommandLineOptions"], swiftSettings: swiftSettings),
        .testTarget(
            name: "DeadLettersTests", dependencies: ["DeadLetters", "Kafka", "DailyValueContract"],
            swiftSettings: swiftSettings),
        .testTarget(name: "KafkaTests", dependencies: ["Kafka", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "IngestAuthTests", dependencies: ["IngestAuth", "Hashing", "Essentials", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ProducerTests", dependencies: ["Producer", "DailyValueContract", "Kafka", "TestSupport", "SeededRandom"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IngestTests",
            dependencies: [
                "IngestGateway", "IngestAuth", "HTTPServer", "Gzip", "Kafka", "Observability", "TestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WorkerTests",
            dependencies: [
                "WorkerCore", "Kafka", "ObservationUpsert", "HTTPClient", "HTTPServer", "MallocTuning", "Hashing",
                "TestSupport", "DeadLetters", "CommandLineOptions", "IngestGateway", "IngestAuth",
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
