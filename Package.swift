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
        .library(name: "ObservationUpsert", targets: ["ObservationUpsert"]),
        .library(name: "Kafka", targets: ["Kafka"]),
        .library(name: "Producer", targets: ["Producer"]),
        .executable(name: "worker", targets: ["Worker"]),
        .executable(name: "producer", targets: ["ProducerCLI"]),
        .executable(name: "devbroker", targets: ["DevBroker"]),
        .executable(name: "storectl", targets: ["StoreCtl"]),
    ],
    targets: [
        // MARK: - C system libraries (Debian -dev packages)
        .systemLibrary(name: "CKafka", pkgConfig: "rdkafka", providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),

        // MARK: - Libraries
        .target(name: "CommandLineOptions", swiftSettings: swiftSettings),
        .target(name: "SeededRandom", swiftSettings: swiftSettings),
        .target(
            name: "ObservationUpsert",
            dependencies: ["CSQLite", "CPostgres", "CCrypto"],
            swiftSettings: swiftSettings
        ),
        .target(name: "Kafka", dependencies: ["CKafka"], swiftSettings: swiftSettings),
        .target(
            name: "Producer", dependencies: ["Kafka", "ObservationUpsert", "SeededRandom"], swiftSettings: swiftSettings
        ),
        .target(
            name: "WorkerCore",
            dependencies: ["CommandLineOptions", "Kafka", "ObservationUpsert", "CCrypto", "CMicroHTTPD"],
            swiftSettings: swiftSettings
        ),

        // MARK: - Executables
        .executableTarget(
            name: "Worker", dependencies: ["CommandLineOptions", "WorkerCore"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "ProducerCLI", dependencies: ["CommandLineOptions", "Producer"], swiftSettings: swiftSettings),
        .executableTarget(name: "DevBroker", dependencies: ["CommandLineOptions", "Kafka"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "StoreCtl", dependencies: ["CommandLineOptions", "ObservationUpsert"], swiftSettings: swiftSettings),

        // MARK: - Tests
        // Test-only helper processes (`dvp-test-tools race`): built with the package, not a product, never shipped.
        .executableTarget(
            name: "dvp-test-tools", dependencies: ["CommandLineOptions", "ObservationUpsert", "SeededRandom"],
            path: "Tests/TestTools", swiftSettings: swiftSettings
        ),
        // Shared by the test targets only: child processes, PostgreSQL, brokers, paths, seeded random, polling.
        .target(
            name: "TestSupport", dependencies: ["Kafka", "SeededRandom"], path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ObservationUpsertTests", dependencies: ["ObservationUpsert", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "CommandLineOptionsTests", dependencies: ["CommandLineOptions"], swiftSettings: swiftSettings),
        .testTarget(name: "KafkaTests", dependencies: ["Kafka", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ProducerTests", dependencies: ["Producer", "Kafka", "TestSupport"], swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WorkerTests",
            dependencies: ["WorkerCore", "Kafka", "ObservationUpsert", "TestSupport"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
