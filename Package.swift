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
        .library(name: "ObservationMapping", targets: ["ObservationMapping"]),
        .library(name: "StoreCore", targets: ["StoreCore"]),
        .library(name: "ObservationStores", targets: ["ObservationStores"]),
        .library(name: "Kafka", targets: ["Kafka"]),
        .library(name: "Producer", targets: ["Producer"]),
        .executable(name: "worker", targets: ["Worker"]),
        .executable(name: "producer", targets: ["ProducerCLI"]),
        .executable(name: "devbroker", targets: ["DevBroker"]),
        .executable(name: "storectl", targets: ["StoreCtl"]),
        .executable(name: "dlq", targets: ["DLQ"]),
        .executable(name: "dvp", targets: ["MultiCall"]),
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
        /// Small helpers every target may import (Duration conversions, serial-queue confinement, SplitMix64, the one
        /// seeded generator); no C library.
        .target(name: "Essentials", swiftSettings: swiftSettings),
        /// SHA-256, HMAC-SHA256 and RS256/ES256 signature verification over libcrypto.
        .target(name: "Hashing", dependencies: ["CCrypto"], swiftSettings: swiftSettings),
        /// The only importers of CSQLite / CPostgres: connections, statements, results, typed errors.
        .target(name: "SQLiteClient", dependencies: ["CSQLite", "Essentials"], swiftSettings: swiftSettings),
        .target(name: "PostgresClient", dependencies: ["CPostgres", "Essentials"], swiftSettings: swiftSettings),
        /// The only importer of CCurl: kept-alive HTTP/1.1 and HTTP/2 connections, TLS, timeouts, typed errors.
        .target(name: "HTTPClient", dependencies: ["CCurl", "Essentials"], swiftSettings: swiftSettings),
        /// The only importer of CMicroHTTPD and CZlib: a hardened HTTP/1.1 server (limits, request bodies, gzip bodies
        /// inflated up to a limit, typed errors).
        .target(
            name: "HTTPServer", dependencies: ["CMicroHTTPD", "CZlib", "Essentials"], swiftSettings: swiftSettings),
        /// The only importer of CZstd: stored FHIR documents compressed with a shipped dictionary (~110 bytes each).
        .target(name: "DocumentCompression", dependencies: ["CZstd", "Essentials"], swiftSettings: swiftSettings),

        // MARK: - Libraries
        /// JSON at the bottom: the strict scanner (duplicate keys refused, the failing field named), the value and
        /// the writer every JSON producer and reader shares; no C library.
        .target(name: "JSON", dependencies: ["Essentials"], swiftSettings: swiftSettings),
        /// The DailyValue event contract and the metric catalog; no C library.
        .target(name: "DailyValueContract", dependencies: ["Essentials", "JSON"], swiftSettings: swiftSettings),
        /// One command-line parser for every executable: flags, environment twins, help text, exit status 2.
        .target(name: "CommandLineOptions", dependencies: ["Essentials"], swiftSettings: swiftSettings),
        /// The services' JSON-lines logger, Prometheus registry (each process declares its families) and signal stream.
        .target(name: "Observability", dependencies: ["Essentials", "JSON"], swiftSettings: swiftSettings),
        /// One service lifecycle for every service process: `Service`, `ServiceGroup` (signals, the stop deadline,
        /// reverse-order graceful shutdown, escalation), the shared exit statuses.
        .target(name: "ServiceLifecycle", dependencies: ["Observability"], swiftSettings: swiftSettings),
        /// The ingest gateway's credentials: bearer tokens (API keys, JWTs) to the scope they grant.
        .target(name: "IngestAuth", dependencies: ["Hashing", "Essentials", "JSON"], swiftSettings: swiftSettings),
        /// The FHIR R4 mapping: a validated `DailyValue` to an `ObservationRecord` (resource parts, facts, digest).
        .target(
            name: "ObservationMapping", dependencies: ["JSON", "DailyValueContract", "Essentials", "Hashing"],
            swiftSettings: swiftSettings),
        /// The store core: the `ObservationStore` protocol, its declared capabilities, the upsert plan and results,
        /// store errors, the stored-document format and schema migration steps. No database client.
        .target(
            name: "StoreCore",
            dependencies: [
                "JSON", "ObservationMapping", "DailyValueContract", "DocumentCompression", "Essentials", "Hashing",
            ],
            swiftSettings: swiftSettings),
        /// The embedded SQLite store (the only SQL for SQLite).
        .target(
            name: "SQLiteStore",
            dependencies: [
                "StoreCore", "ObservationMapping", "DailyValueContract", "DocumentCompression", "Essentials", "Hashing",
                "SQLiteClient",
            ],
            swiftSettings: swiftSettings),
        /// The PostgreSQL store: partitions, retention, finalize, audit, export, migrations (the only SQL for it).
        .target(
            name: "PostgresStore",
            dependencies: [
                "JSON", "StoreCore", "ObservationMapping", "DailyValueContract", "DocumentCompression", "Essentials",
                "Hashing",
                "PostgresClient",
            ],
            swiftSettings: swiftSettings),
        /// A FHIR R4 server as the store: batch Bundles of conditional updates, tokens, the create race.
        .target(
            name: "FHIRServerStore",
            dependencies: [
                "JSON", "StoreCore", "ObservationMapping", "DailyValueContract", "Essentials", "Hashing", "HTTPClient",
            ],
            swiftSettings: swiftSettings),
        /// Opens a store from its location (`--store`), and the `--fhir-*` flags that configure a FHIR store.
        .target(
            name: "ObservationStores",
            dependencies: [
                "StoreCore", "SQLiteStore", "PostgresStore", "FHIRServerStore", "PostgresClient", "CommandLineOptions",
                "HTTPClient", "Essentials", "DailyValueContract",
            ],
            swiftSettings: swiftSettings),
        .target(name: "Kafka", dependencies: ["CKafka", "Essentials"], swiftSettings: swiftSettings),
        .target(
            name: "Producer", dependencies: ["Essentials", "Kafka", "DailyValueContract", "Hashing"],
            swiftSettings: swiftSettings
        ),
        /// The dead-letter record format (header names, shared with the worker), statistics and redrive planning.
        .target(
            name: "DeadLetters", dependencies: ["JSON", "Kafka", "DailyValueContract", "Essentials", "Hashing"],
            swiftSettings: swiftSettings),
        /// The HTTP ingest gateway: configuration, routes, body decoding, validation with the workers' decoder,
        /// publishing through the Producer library, backpressure, idempotency, metrics.
        .target(
            name: "IngestGateway",
            dependencies: [
                "JSON", "CommandLineOptions", "DailyValueContract", "Essentials", "Hashing", "HTTPServer",
                "IngestAuth", "Kafka", "Observability", "Producer", "ServiceLifecycle", "StoreCore",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WorkerCore",
            dependencies: [
                "PostgresClient", "CMalloc", "JSON", "CommandLineOptions", "Kafka", "ObservationMapping", "StoreCore",
                "ObservationStores",
                "FHIRServerStore", "DailyValueContract", "Essentials", "Hashing", "HTTPServer", "DeadLetters",
                "Observability", "ServiceLifecycle",
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - Executables
        .executableTarget(
            name: "Worker", dependencies: ["CommandLineOptions", "WorkerCore"],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "ProducerCLI",
            dependencies: ["Kafka", "JSON", "CommandLineOptions", "Producer", "DailyValueContract", "Essentials"],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "DevBroker",
            dependencies: ["CommandLineOptions", "Essentials", "Kafka", "Observability", "ServiceLifecycle"],
            swiftSettings: swiftSettings),
        /// `dlq`'s commands (a library, so that the multi-call `dvp` links them too).
        .target(
            name: "DLQCommands",
            dependencies: [
                "CommandLineOptions", "DeadLetters", "DailyValueContract", "Kafka", "HTTPClient", "StoreCore",
                "ObservationStores",
            ],
            swiftSettings: swiftSettings),
        .executableTarget(name: "DLQ", dependencies: ["DLQCommands"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "Ingest", dependencies: ["IngestGateway", "ObservationStores"], swiftSettings: swiftSettings),
        /// `storectl`'s commands (a library, so that the multi-call `dvp` links them too).
        .target(
            name: "StoreCtlCommands",
            dependencies: [
                "PostgresClient", "CommandLineOptions", "StoreCore", "ObservationStores", "DailyValueContract",
                "Essentials", "JSON", "Kafka",
            ],
            swiftSettings: swiftSettings),
        .executableTarget(name: "StoreCtl", dependencies: ["StoreCtlCommands"], swiftSettings: swiftSettings),
        /// `dvp`: worker, ingest, storectl and dlq in one binary, chosen by the name it is run as (the image ships it
        /// once and links the four names to it: the code they share is shipped once).
        .executableTarget(
            name: "MultiCall",
            dependencies: [
                "WorkerCore", "IngestGateway", "ObservationStores", "StoreCtlCommands", "DLQCommands",
                "CommandLineOptions",
            ],
            swiftSettings: swiftSettings),

        // MARK: - Tests
        // Test-only helper processes (`dvp-test-tools race`): built with the package, not a product, never shipped.
        .executableTarget(
            name: "dvp-test-tools",
            dependencies: [
                "FHIRServerStore", "Essentials", "CommandLineOptions", "ObservationMapping", "StoreCore",
                "ObservationStores", "DailyValueContract",
                "HTTPClient", "DocumentCompression", "Observability", "ServiceLifecycle",
            ],
            path: "Tests/TestTools", exclude: ["fhir_double.py"], swiftSettings: swiftSettings
        ),
        // The worker with the reliability suite's crash points (`DVP_CRASH_AT`): built for the tests, never shipped.
        .executableTarget(
            name: "dvp-fault-worker",
            dependencies: ["DailyValueContract", "ObservationMapping", "WorkerCore", "StoreCore", "TestSupport"],
            path: "Tests/FaultWorker", swiftSettings: swiftSettings),
        // Shared by the test targets only: child processes, PostgreSQL, brokers, paths, seeded random, polling.
        .target(
            name: "TestSupport", dependencies: ["Essentials", "Kafka", "HTTPClient"],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StoreTests",
            dependencies: [
                "JSON", "ObservationMapping", "StoreCore", "SQLiteStore", "PostgresStore", "FHIRServerStore",
                "ObservationStores", "DailyValueContract", "SQLiteClient", "PostgresClient", "HTTPClient", "Essentials",
                "TestSupport",
                "DocumentCompression", "Hashing",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "JSONTests", dependencies: ["Essentials", "JSON"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CommandLineOptionsTests", dependencies: ["CommandLineOptions"], swiftSettings: swiftSettings),
        .testTarget(
            name: "DeadLettersTests", dependencies: ["DeadLetters", "Kafka", "DailyValueContract"],
            swiftSettings: swiftSettings),
        .testTarget(name: "KafkaTests", dependencies: ["Kafka", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ServiceLifecycleTests", dependencies: ["ServiceLifecycle", "Observability", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "IngestAuthTests", dependencies: ["IngestAuth", "Hashing", "Essentials", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ProducerTests",
            dependencies: ["Essentials", "Producer", "DailyValueContract", "Kafka", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IngestTests",
            dependencies: [
                "IngestGateway", "IngestAuth", "HTTPServer", "Kafka", "Observability", "TestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WorkerTests",
            dependencies: [
                "FHIRServerStore", "Observability", "WorkerCore", "Kafka", "ObservationMapping", "StoreCore",
                "ObservationStores",
                "DailyValueContract",
                "HTTPClient", "HTTPServer", "Hashing",
                "TestSupport", "DeadLetters", "CommandLineOptions", "IngestGateway", "IngestAuth",
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
