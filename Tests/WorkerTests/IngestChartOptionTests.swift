import CommandLineOptions
import Foundation
import TestSupport
import Testing

@testable import IngestGateway

/// The Helm chart's gateway Deployment (`ingest.enabled`) against the gateway's own option table (``IngestOptions``),
/// as ``ChartOptionTests`` does for the worker: the chart is rendered with the real helm, and what it gives the
/// `ingest` container is checked against what the gateway declares, accepts and defaults to.
@Suite("Chart options of the ingest gateway", .serialized, .timeLimit(.minutes(5)))
struct IngestChartOptionTests {
    typealias Values = ChartOptionTests.Values

    static let apiKeys = #"{"ingest": {"enabled": true, "auth": {"apiKeys": {"existingSecret": "ingest-keys"}}}}"#
    static let jwt = """
        {"ingest": {"enabled": true, "auth": {"jwt": {"existingSecret": "ingest-jwks", "key": "keys.json",
          "audience": "https://ingest.acme-health.test", "issuer": "https://idp.acme-health.test/"}}}}
        """

    /// The gateway's defaults beside each way in.
    static let chartDefaults: [Values] = [
        Values(name: "API keys", overrides: [ChartOptionTests.toGive, apiKeys]),
        Values(name: "a JWKS", overrides: [ChartOptionTests.toGive, jwt]),
    ]

    /// `ci/ingest-values.yaml` and the branches of the gateway's environment it does not take.
    static let everyBranch: [Values] =
        [Values(name: "ci/ingest-values.yaml", files: ["ci/ingest-values.yaml"])] + chartDefaults + [
            Values(
                name: "no authentication, acknowledged",
                overrides: [
                    ChartOptionTests.toGive,
                    """
                    {"ingest": {"enabled": true, "auth": {"insecureNoAuth": true, "acknowledgeInsecureNoAuth": true}}}
                    """,
                ]),
            Values(
                name: "SASL password as an env var, secret properties", files: ["ci/keda-sasl-tls-values.yaml"],
                overrides: [apiKeys, #"{"kafka": {"sasl": {"mountPasswordAsFile": false}}}"#]),
        ]

    /// Settings the chart passes although they are the gateway's defaults, because the chart needs the value itself.
    static let chartNeeds: [String: String] = [
        "DVP_HTTP_PORT": "the containerPort and the Service use it",
        "DVP_ADMIN_PORT": "the admin containerPort, the probes and the admin Service use it",
        "DVP_TOPIC": "the gateway must publish to the topic the workers consume (kafka.topic)",
        "--drain-timeout": "terminationGracePeriodSeconds is derived from it",
    ]

    static let twins: [String: CommandLineOption] = Dictionary(
        IngestOptions.parser.options.compactMap { option in option.environment.map { ($0, option) } },
        uniquingKeysWith: { first, _ in first })

    static func isDeclared(_ variable: String) -> Bool {
        twins[variable] != nil
            || ChartOptionTests.propertyPrefixes.contains { variable.hasPrefix($0) && variable.count > $0.count }
    }

    // MARK: - Names

    @Test("Every DVP_* variable and flag the chart gives the gateway is one it declares", arguments: everyBranch)
    func declared(_ values: Values) async throws {
        let chart = try await values.render()
        #expect(chart.ingestContainers.count == 1)
        #expect(!chart.workerContainers.contains { $0.owner == chart.ingestContainers.first?.owner })
        for container in chart.ingestContainers {
            for variable in container.environment where variable.name.hasPrefix("DVP_") {
                #expect(Self.isDeclared(variable.name), "\(variable.name) is no environment twin of a gateway option")
            }
            for group in Self.options(container.arguments) {
                #expect(IngestOptions.parser.options.contains { $0.names.contains(group[0]) }, "\(group[0])")
            }
        }
    }

    @Test("Every DVP_* name in the gateway's templates is one the gateway reads")
    func namesInTemplates() throws {
        var seen = 0
        for file in ["templates/_ingest.tpl", "templates/ingest-deployment.yaml"] {
            let text = try String(contentsOf: RenderedChart.directory.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: /DVP_[A-Z0-9_]*/) {
                let variable = String(match.output)
                seen += 1
                let isPrefix = ChartOptionTests.propertyPrefixes.contains(variable)
                #expect(isPrefix || Self.isDeclared(variable), "\(file) names \(variable), no gateway option's twin")
            }
        }
        #expect(seen > 10)
    }

    // MARK: - Values

    @Test("The gateway accepts the configuration the chart renders", arguments: everyBranch)
    func accepted(_ values: Values) async throws {
        let chart = try await values.render()
        let files = try TestEnvironment.temporaryDirectory("dvp-ingest-pod")
        defer { try? FileManager.default.removeItem(at: files) }
        for container in chart.ingestContainers {
            let launch = try PodLaunch(container, files: files)
            let configuration: IngestConfiguration
            do {
                configuration = try #require(
                    try IngestConfiguration.parse(launch.arguments, environment: launch.environment))
            } catch {
                Issue.record("the gateway refuses the chart's configuration: \(error)")
                continue
            }
            #expect(configuration.httpPort == 8080 && configuration.topic == "daily-values")
            // The credential files are the mounted ones, and --insecure-no-auth comes only without any.
            let auth = configuration.authentication
            #expect(auth.apiKeysFile == launch.environment["DVP_API_KEYS"])
            #expect(auth.jwksFile == launch.environment["DVP_JWKS"])
            #expect(auth.insecureNoAuth == (auth.apiKeysFile == nil && auth.jwksFile == nil))
            // The erasure ledger: the workers' store and id key, exactly when the chart turns the check on.
            #expect((configuration.erasure != nil) == (launch.environment["DVP_ERASURE_STORE_FILE"] != nil))
            #expect(configuration.erasure.map { $0.key != nil } ?? true, "the workers' id key reaches the gateway")
            for variable in container.environment {
                guard let prefix = ChartOptionTests.propertyPrefixes.first(where: { variable.name.hasPrefix($0) })
                else { continue }
                let property = String(variable.name.dropFirst(prefix.count)).lowercased()
                    .replacingOccurrences(of: "_", with: ".")
                #expect(configuration.kafkaProperties[property] != nil, "\(variable.name) does not reach the gateway")
            }
        }
    }

    @Test("A chart default the gateway also has is not passed, unless the chart needs it and it is the gateway's")
    func defaults() async throws {
        var needed: Set<String> = []
        for values in Self.chartDefaults {
            let chart = try await values.render()
            let files = try TestEnvironment.temporaryDirectory("dvp-ingest-pod")
            defer { try? FileManager.default.removeItem(at: files) }
            for container in chart.ingestContainers {
                let launch = try PodLaunch(container, files: files)
                guard case .success(let configuration) = Self.parsed(launch) else {
                    Issue.record("\(values.name): the gateway refuses the chart's defaults: \(Self.parsed(launch))")
                    continue
                }
                var settings = container.environment.map { variable in
                    var without = launch
                    without.environment[variable.name] = nil
                    return (variable.name, without)
                }
                for group in Self.options(launch.arguments) {
                    var without = launch
                    without.arguments = Self.options(launch.arguments).filter { $0 != group }.flatMap { $0 }
                    settings.append((group[0], without))
                }
                for (name, without) in settings {
                    let repeatsDefault = (try? Self.parsed(without).get()) == configuration
                    if let reason = Self.chartNeeds[name] {
                        needed.insert(name)
                        #expect(
                            repeatsDefault,
                            "\(values.name): \(name) is not the gateway's default; it is needed: \(reason)")
                    } else {
                        #expect(!repeatsDefault, "\(values.name): \(name) repeats the gateway's own default")
                    }
                }
            }
        }
        #expect(needed == Set(Self.chartNeeds.keys), "chartNeeds names settings the chart no longer passes")
    }

    /// Settings the schema bounds, each with its partner when the two must be given together.
    static let bounded: [String] =
        [
            "ingest.httpPort", "ingest.drainTimeoutSeconds", "ingest.logLevel", "ingest.auth.jwt.maxLifetimeSeconds",
        ]
        + [
            "maxRecords", "maxBodyBytes", "maxConcurrentRequests", "maxInFlightBytes", "requestTimeoutSeconds",
            "idempotencyTTLSeconds", "idempotencyMaxKeys", "idempotencyMaxRecords", "threads", "maxConnections",
            "maxConnectionsPerAddress", "maxTenantRequests", "maxTenantInFlightBytes", "headTimeoutSeconds",
            "minBodyRate",
        ].map { "ingest.settings.\($0)" }

    @Test("Every value the schema allows for a gateway setting, the gateway accepts", arguments: bounded)
    func schemaBounds(_ path: String) async throws {
        let allowed = try ChartOptionTests.schemaValues(of: path)
        #expect(!allowed.isEmpty, "values.schema.json bounds \(path) neither by enum nor by minimum/maximum")
        let files = try TestEnvironment.temporaryDirectory("dvp-ingest-pod")
        defer { try? FileManager.default.removeItem(at: files) }
        for value in allowed {
            // A JWT setting goes with the JWKS it is for (the gateway refuses it without one).
            let credential = path.hasPrefix("ingest.auth.jwt.") ? Self.jwt : Self.apiKeys
            var overrides = [ChartOptionTests.toGive, credential, ChartOptionTests.override(path, value)]
            // The body limit and the bytes in flight go together, the second at least the first.
            if path.hasSuffix(".maxBodyBytes") {
                overrides.append(ChartOptionTests.override("ingest.settings.maxInFlightBytes", value))
            } else if path.hasSuffix(".maxInFlightBytes"), let bytes = value as? Int {
                overrides.append(ChartOptionTests.override("ingest.settings.maxBodyBytes", min(bytes, 1 << 30)))
            } else if path.hasSuffix(".maxTenantRequests") {
                // A tenant's share goes with its bound, at least as large.
                overrides.append(ChartOptionTests.override("ingest.settings.maxConcurrentRequests", 65_536))
            } else if path.hasSuffix(".maxTenantInFlightBytes"), let bytes = value as? Int {
                overrides.append(ChartOptionTests.override("ingest.settings.maxInFlightBytes", 1 << 40))
                overrides.append(ChartOptionTests.override("ingest.settings.maxBodyBytes", min(bytes, 1 << 30)))
            }
            let chart = try await RenderedChart.render(overrides: overrides)
            let text = "\(value)"
            for container in chart.ingestContainers {
                let launch = try PodLaunch(container, files: files)
                #expect(
                    text.isEmpty || launch.arguments.contains(text) || launch.environment.values.contains(text),
                    "\(path)=\(text) does not reach the gateway")
                if case .failure(let error) = Self.parsed(launch) {
                    Issue.record("\(path)=\(text) passes the schema, but the gateway refuses it: \(error)")
                }
            }
            #expect(chart.ingestContainers.count == 1)
        }
    }

    // MARK: - Helpers

    /// What `IngestConfiguration.parse` makes of a launch: every stored property as `path = value` lines, or the error.
    static func parsed(_ launch: PodLaunch) -> Result<[String], IngestConfigurationError> {
        do {
            guard let configuration = try IngestConfiguration.parse(launch.arguments, environment: launch.environment)
            else { return .failure(IngestConfigurationError("--help")) }
            return .success(ConfigurationLines.of(configuration))
        } catch {
            return .failure(error)
        }
    }

    /// The command line as the gateway's options, each with its value when it takes one.
    static func options(_ arguments: [String]) -> [[String]] {
        var groups: [[String]] = []
        var index = 0
        while index < arguments.count {
            let option = IngestOptions.parser.options.first { $0.names.contains(arguments[index]) }
            let count = option.map { $0.kind != .flag } ?? false && index + 1 < arguments.count ? 2 : 1
            groups.append(Array(arguments[index..<index + count]))
            index += count
        }
        return groups
    }
}
