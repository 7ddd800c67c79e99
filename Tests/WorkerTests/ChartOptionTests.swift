import CommandLineOptions
import Foundation
import TestSupport
import Testing

@testable import WorkerCore

/// The Helm chart against the worker's own option table (``WorkerOptions``): the chart is rendered with the real helm
/// and what it gives the worker container is checked against what the worker declares and what it defaults to.
/// Renaming an option, changing a default or narrowing an accepted value on one side only fails here.
@Suite("Chart options", .serialized, .timeLimit(.minutes(5)))
struct ChartOptionTests {
    // MARK: - Cases

    /// A set of values to render: chart files (under the chart directory) and JSON overrides, in that order.
    struct Values: Sendable, CustomTestStringConvertible {
        var name: String
        var files: [String] = []
        var overrides: [String] = []
        /// Variables this set gives on purpose (not chart defaults): exempt from the default comparison.
        var given: Set<String> = []

        var testDescription: String { name }

        func render() async throws -> RenderedChart {
            try await RenderedChart.render(files: files, overrides: overrides)
        }
    }

    /// The values each deployment must give, nothing else: what is rendered beside them are the chart's defaults.
    static let toGive = """
        {"kafka": {"brokers": "kafka-0.kafka:9092,kafka-1.kafka:9092"},
         "store": {"postgres": {"existingSecret": "daily-values-postgres"}},
         "idKey": {"existingSecret": "daily-values-id-key"},
         "worker": {"identifierSystem": "https://fhir.acme-health.test/identifiers/daily-summary",
                    "sourceExtensionURL": "https://fhir.acme-health.test/StructureDefinition/hk-source"}}
        """
    static let fhirStore = #"{"store": {"type": "fhir", "fhir": {"url": "https://fhir.acme-health.test/fhir/R4"}}}"#
    static let backfill = #"{"backfill": {"enabled": true, "group": "backfill-2026-11-29"}}"#

    /// The chart's defaults for each store and the backfill Job, and a topic of the deployment's own (the dead-letter
    /// topic is then derived from it, as the worker derives it).
    static let chartDefaults: [Values] = [
        Values(name: "defaults (PostgreSQL)", overrides: [toGive]),
        Values(
            name: "defaults with SQLite", overrides: [toGive, #"{"store": {"type": "sqlite"}, "replicaCount": 1}"#]),
        Values(name: "defaults with a FHIR server", overrides: [toGive, fhirStore]),
        Values(name: "defaults with the backfill Job", overrides: [toGive, backfill], given: ["DVP_GROUP"]),
        Values(
            name: "another topic (the derived dead-letter topic)",
            overrides: [toGive, #"{"kafka": {"topic": "ingest.daily-values"}}"#], given: ["DVP_TOPIC"]),
    ]

    /// Every `ci/` file, and the branches of the environment block no `ci/` file takes.
    static let everyBranch: [Values] =
        [
            "postgres-values", "sqlite-values", "hpa-values", "keda-sasl-tls-values", "fhir-values", "ingest-values",
        ].map { Values(name: "ci/\($0).yaml", files: ["ci/\($0).yaml"]) } + [
            Values(
                name: "FHIR with a bearer token and the system CAs", files: ["ci/fhir-values.yaml"],
                overrides: [
                    """
                    {"store": {"fhir": {"batchSize": null, "connectTimeoutSeconds": null,
                      "token": {"existingSecret": "fhir-bearer-token"},
                      "oauth": {"tokenURL": "", "clientID": "", "existingSecret": "", "scope": ""},
                      "tls": {"existingSecret": "", "caKey": "", "certKey": "", "keyKey": ""}}}}
                    """
                ]),
            Values(
                name: "the DSN and the SASL password as env vars", files: ["ci/keda-sasl-tls-values.yaml"],
                overrides: [
                    #"{"store": {"postgres": {"mountAsFile": false}}, "kafka": {"sasl": {"mountPasswordAsFile": false}}}"#
                ]),
            Values(
                name: "every optional worker setting and secret librdkafka properties",
                overrides: [
                    toGive,
                    """
                    {"worker": {"logLevel": "debug", "onVersionConflict": "dead-letter", "storeDeviceName": true,
                                "catalog": {"configMap": "catalog-overrides"}},
                     "kafka": {"dlqTopic": "daily-values.dead-letters", "properties": {"fetch.max.bytes": 52428800},
                               "secretProperties": {"ssl.key.password": {"existingSecret": "kafka-client", "key": "pw"}}},
                     "store": {"postgres": {"mountAsFile": false}}}
                    """,
                ]),
            Values(
                name: "the development key",
                overrides: [toGive, #"{"idKey": {"existingSecret": "", "allowDevelopmentKey": true}}"#, backfill]),
        ]

    /// Worker settings the chart passes although its default is the worker's own, because the chart needs the value
    /// itself. Each must stay equal to the worker's default; any other repeated default is an error.
    static let chartNeeds: [String: String] = [
        "DVP_TOPIC": "KEDA's trigger and NOTES.txt name the topic",
        "DVP_GROUP": "KEDA's trigger watches the group, and a backfill group must differ from it",
        "DVP_START": "KEDA's offsetResetPolicy follows it",
        "DVP_DLQ_TOPIC": "the dlq Jobs share the environment block, and dlq's own default is not <topic>.dlq",
        "DVP_HTTP_PORT": "the containerPort, the probes and the metrics Service use it",
        "--drain-timeout": "terminationGracePeriodSeconds is derived from it",
    ]

    /// The worker's declared environment twins, by variable.
    static let twins: [String: CommandLineOption] = Dictionary(
        WorkerOptions.parser.options.compactMap { option in option.environment.map { ($0, option) } },
        uniquingKeysWith: { first, _ in first })

    /// The prefixes of librdkafka properties given through the environment (`-X`, `--kafka-property-file`).
    static let propertyPrefixes = ["DVP_X_", ParsedCommandLine.kafkaPropertyFilePrefix]

    // MARK: - Names

    @Test("Every DVP_* variable and flag the chart gives the worker is one it declares", arguments: everyBranch)
    func declared(_ values: Values) async throws {
        let chart = try await values.render()
        #expect(!chart.workerContainers.isEmpty)
        for container in chart.workerContainers {
            for variable in container.environment where variable.name.hasPrefix("DVP_") {
                #expect(
                    Self.isDeclared(variable.name),
                    "\(container.owner): \(variable.name) is no environment twin of a worker option")
            }
            var index = 0
            while index < container.arguments.count {
                let argument = container.arguments[index]
                let option = WorkerOptions.parser.options.first { $0.names.contains(argument) }
                #expect(option != nil, "\(container.owner): \(argument) is no worker option")
                index += option?.kind == .flag ? 1 : 2
            }
        }
    }

    @Test(
        "Every DVP_* name in the worker's templates, values.yaml and values.schema.json is one the worker reads (or, in the values files, the gateway)"
    )
    func namesInChartFiles() throws {
        let files = [
            "templates/_helpers.tpl", "templates/deployment.yaml", "templates/backfill-job.yaml", "values.yaml",
            "values.schema.json",
        ]
        let name = /DVP_[A-Z0-9_]*/
        var seen = 0
        for file in files {
            let text = try String(
                contentsOf: RenderedChart.directory.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: name) {
                let variable = String(match.output)
                seen += 1
                // `DVP_X_<PROPERTY>`, `DVP_FHIR_*`: a prefix of declared names.
                let isPrefix =
                    variable.hasSuffix("_")
                    && (Self.propertyPrefixes.contains(variable) || Self.twins.keys.contains { $0.hasPrefix(variable) })
                // values.yaml and the schema also describe the gateway's settings (IngestChartOptionTests).
                let gateway = file.hasPrefix("values") && IngestChartOptionTests.twins[variable] != nil
                #expect(
                    isPrefix || Self.isDeclared(variable) || variable == "DVP_ID_KEY" || gateway,
                    "\(file) names \(variable), which is no environment twin of a worker option")
            }
        }
        #expect(seen > 20)
        // DVP_ID_KEY (the key itself, for a shell) is read without a flag: it must still work.
        let withKey = try #require(
            try WorkerConfiguration.parse(["--brokers", "b:1"], environment: ["DVP_ID_KEY": "k"]))
        #expect(!withKey.usesDevelopmentIDKey)
    }

    static func isOption(_ name: String) -> Bool { WorkerOptions.parser.options.contains { $0.names.contains(name) } }

    static func isDeclared(_ variable: String) -> Bool {
        twins[variable] != nil
            || propertyPrefixes.contains { variable.hasPrefix($0) && variable.count > $0.count }
    }

    // MARK: - Values

    @Test("The worker accepts the configuration the chart renders", arguments: everyBranch)
    func accepted(_ values: Values) async throws {
        let chart = try await values.render()
        let files = try TestEnvironment.temporaryDirectory("dvp-pod")
        defer { try? FileManager.default.removeItem(at: files) }
        for container in chart.workerContainers {
            let launch = try PodLaunch(container, files: files)
            let configuration: WorkerConfiguration
            do {
                configuration = try #require(
                    try WorkerConfiguration.parse(launch.arguments, environment: launch.environment))
            } catch {
                Issue.record("\(container.owner): the worker refuses the chart's configuration: \(error)")
                continue
            }
            // Each librdkafka property the chart passes reaches the worker under its own name.
            for variable in container.environment {
                guard let prefix = Self.propertyPrefixes.first(where: { variable.name.hasPrefix($0) }) else { continue }
                let property = String(variable.name.dropFirst(prefix.count)).lowercased()
                    .replacingOccurrences(of: "_", with: ".")
                #expect(
                    configuration.kafkaProperties[property] != nil,
                    "\(container.owner): \(variable.name) does not reach the worker as \(property)")
            }
        }
    }

    @Test("A chart default the worker also has is not passed, unless the chart needs it and it is the worker's")
    func defaults() async throws {
        var needed: Set<String> = []
        for values in Self.chartDefaults {
            let chart = try await values.render()
            let files = try TestEnvironment.temporaryDirectory("dvp-pod")
            defer { try? FileManager.default.removeItem(at: files) }
            for container in chart.workerContainers {
                let launch = try PodLaunch(container, files: files)
                let place = "\(values.name), \(container.owner)"
                guard case .success(let configuration) = launch.parsed() else {
                    Issue.record("\(place): the worker refuses the chart's defaults: \(launch.parsed())")
                    continue
                }
                // Each setting the chart passes, taken away: does the worker end up configured the same?
                let settings =
                    container.environment.map { ($0.name, launch.removing(variable: $0.name), rendered($0)) }
                    + launch.options.filter { $0[0].hasPrefix("--") }.map {
                        ($0[0], launch.removing(option: $0), $0.dropFirst().joined())
                    }
                // An undeclared name is the first test's failure; here it would only look like a repeated default.
                for (name, without, value) in settings where Self.isDeclared(name) || Self.isOption(name) {
                    let repeatsDefault = (try? without.parsed().get()) == configuration
                    if let reason = Self.chartNeeds[name] {
                        needed.insert(name)
                        if !values.given.contains(name) {
                            #expect(
                                repeatsDefault,
                                """
                                \(place): the chart's default \(name)=\(value) is not the worker's default (\
                                \(difference(configuration, without.parsed()))); the chart needs it (\(reason)), so \
                                change one side to match the other
                                """)
                        }
                    } else {
                        #expect(
                            !repeatsDefault,
                            """
                            \(place): \(name)=\(value) repeats the worker's own default: pass it only when it is set \
                            (an empty value lets the worker's default apply), or list it in chartNeeds with the reason
                            """)
                    }
                }
            }
        }
        #expect(needed == Set(Self.chartNeeds.keys), "chartNeeds names settings the chart no longer passes")
    }

    /// A worker setting the schema bounds (an enum, or a minimum and a maximum), and the values it needs beside it.
    struct Bounded: Sendable, CustomTestStringConvertible {
        /// The dotted path in values.yaml, e.g. `worker.logLevel`.
        var path: String
        var overrides = [toGive]

        var testDescription: String { path }
    }

    static let bounded: [Bounded] =
        [
            "worker.logLevel", "worker.retractionMode", "worker.onVersionConflict", "worker.subjectReference",
            "worker.batchSize", "worker.batchMs", "worker.httpPort", "worker.drainTimeoutSeconds", "kafka.start",
        ].map { Bounded(path: $0) } + [
            Bounded(path: "backfill.start", overrides: [toGive, backfill]),
            Bounded(path: "store.fhir.batchSize", overrides: [toGive, fhirStore]),
            Bounded(path: "store.fhir.connectTimeoutSeconds", overrides: [toGive, fhirStore]),
        ]

    @Test("Every value the schema allows for a worker setting, the worker accepts", arguments: bounded)
    func schemaBounds(_ setting: Bounded) async throws {
        let allowed = try Self.schemaValues(of: setting.path)
        #expect(!allowed.isEmpty, "values.schema.json bounds \(setting.path) neither by enum nor by minimum/maximum")
        let files = try TestEnvironment.temporaryDirectory("dvp-pod")
        defer { try? FileManager.default.removeItem(at: files) }
        for value in allowed {
            var extra = [Self.override(setting.path, value)]
            if setting.path == "worker.subjectReference", value as? String == "logical" {
                extra.append(#"{"worker": {"patientIdentifierSystem": "https://hospital.test/patients"}}"#)
            }
            let chart = try await RenderedChart.render(overrides: setting.overrides + extra)
            let text = "\(value)"
            var reached = text.isEmpty
            for container in chart.workerContainers {
                let launch = try PodLaunch(container, files: files)
                reached = reached || launch.arguments.contains(text) || launch.environment.values.contains(text)
                if case .failure(let error) = launch.parsed() {
                    Issue.record("\(setting.path)=\(text) passes the schema, but the worker refuses it: \(error)")
                }
            }
            #expect(reached, "\(setting.path)=\(text) does not reach the worker")
        }
    }

    // MARK: - Helpers

    /// The values the schema allows at `path` (dotted, under `properties`): its enum, or its minimum and maximum.
    static func schemaValues(of path: String) throws -> [any Sendable] {
        let data = try Data(contentsOf: RenderedChart.directory.appendingPathComponent("values.schema.json"))
        var node = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        for key in path.split(separator: ".") {
            node = (node?["properties"] as? [String: Any])?[String(key)] as? [String: Any]
        }
        let schema = try #require(node, "values.schema.json has no \(path)")
        if let values = schema["enum"] as? [String] { return values }
        return [schema["minimum"], schema["maximum"]].compactMap { ($0 as? NSNumber)?.intValue }
    }

    /// `{"a": {"b": value}}` for `a.b` as JSON.
    static func override(_ path: String, _ value: Any) -> String {
        let leaf = value is String ? "\"\(value)\"" : "\(value)"
        return path.split(separator: ".").reversed().reduce(leaf) { inner, key in "{\"\(key)\": \(inner)}" }
    }
}

private func rendered(_ variable: RenderedChart.Variable) -> String {
    switch variable.source {
    case .value(let value): value
    case .secret(let name, let key): "<Secret \(name)/\(key)>"
    case .field(let path): "<\(path)>"
    }
}

/// What changes between two parsed configurations, for messages.
private func difference(_ base: [String], _ other: Result<[String], WorkerError>) -> String {
    switch other {
    case .failure(let error): return "without it the worker refuses to start: \(error)"
    case .success(let lines):
        let changed = Set(base).symmetricDifference(lines).sorted()
        return "removing it changes " + changed.joined(separator: "; ")
    }
}
