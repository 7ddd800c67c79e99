import Foundation
import IngestAuth
import IngestGateway
import TestSupport
import Testing

/// The `ingest` command line through the one parser: `--help`, environment twins, the authentication rules
/// (required; `--insecure-no-auth` alone; JWTs with audience and issuer), limits, and messages that never echo a
/// secret. Exit status 2 for every configuration error, before anything listens.
@Suite struct IngestConfigurationTests {
    static func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> IngestConfiguration? {
        try IngestConfiguration.parse(arguments, environment: environment)
    }

    @Test("Flags and their DVP_* twins; a flag wins over its twin")
    func flagsAndTwins() throws {
        let config = try #require(
            try Self.parse(
                [
                    "--brokers", "k1:9092", "--insecure-no-auth", "--max-records", "7", "--request-timeout", "2.5",
                    "-X", "sasl.mechanism=PLAIN",
                ],
                environment: [
                    "DVP_MAX_RECORDS": "9", "DVP_HTTP_PORT": "9000", "DVP_X_SASL_PASSWORD": "pw",
                    "DVP_IDEMPOTENCY_TTL": "60", "DVP_MAX_IN_FLIGHT_BYTES": "8388608",
                ]))
        #expect(config.brokers == "k1:9092")
        #expect(config.limits.maxRecords == 7)
        #expect(config.httpPort == 9000)
        #expect(config.limits.requestTimeout == .milliseconds(2500))
        #expect(config.limits.maxInFlightBytes == 8_388_608)
        #expect(config.idempotency.ttl == .seconds(60))
        #expect(config.kafkaProperties == ["sasl.mechanism": "PLAIN", "sasl.password": "pw"])
        #expect(config.authentication.insecureNoAuth)
        #expect(try Self.parse(["--help"]) == nil)
    }

    @Test("Authentication is required; --insecure-no-auth stands alone; --jwks needs audience and issuer")
    func authenticationRules() throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("dvp-ingest-keys-\(UUID().uuidString)")
        try Data("# keys\n".utf8).write(to: keys)
        defer { try? FileManager.default.removeItem(at: keys) }
        let jwks = ["--jwks", keys.path, "--jwt-audience", "a", "--jwt-issuer", "i"]
        let refusals: [([String], String)] = [
            ([], "authentication is required"),
            (["--api-keys", keys.path, "--insecure-no-auth"], "cannot be combined"),
            (["--jwks", keys.path], "needs --jwt-audience and --jwt-issuer"),
            (["--jwks", keys.path, "--jwt-audience", "a"], "needs --jwt-audience and --jwt-issuer"),
            (["--jwt-issuer", "i", "--api-keys", keys.path], "only used with --jwks"),
            (["--jwt-max-lifetime", "3600", "--api-keys", keys.path], "only used with --jwks"),
            (jwks + ["--jwt-max-lifetime", "0"], "--jwt-max-lifetime: must be a number of seconds"),
            (jwks + ["--jwt-max-lifetime", "2592001"], "--jwt-max-lifetime: must be a number of seconds"),
            (["--api-keys", "/nonexistent/keys"], "--api-keys: cannot read"),
        ]
        for (arguments, message) in refusals {
            #expect {
                _ = try Self.parse(["--brokers", "k:1"] + arguments)
            } throws: { error in
                "\(error)".contains(message)
            }
        }
        let jwt = try #require(try Self.parse(["--brokers", "k:1"] + jwks))
        #expect(jwt.authentication.jwtAudience == "a" && jwt.authentication.jwtIssuer == "i")
        #expect(jwt.authentication.jwtMaxLifetime == JWTPolicy.defaultMaxLifetime)
        let shortLived = try #require(
            try Self.parse(["--brokers", "k:1"] + jwks, environment: ["DVP_JWT_MAX_LIFETIME": "900"]))
        #expect(shortLived.authentication.jwtMaxLifetime == .seconds(900))
    }

    @Test("The verifier factory: no verifier without auth; a key file that cannot be used is named, its text never")
    func verifierFactory() throws {
        var options = IngestConfiguration.Authentication()
        options.insecureNoAuth = true
        guard case .insecureNoAuth = try IngestAuthentication.make(options) else {
            Issue.record("--insecure-no-auth makes no verifier")
            return
        }
        let directory = try TestEnvironment.temporaryDirectory("dvp-ingest-keys")
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("keys")
        try Data("sha256:\(String(repeating: "ab", count: 32))  tenant=t  patients=*  access=all-patients\n".utf8)
            .write(to: keys)
        options = IngestConfiguration.Authentication()
        options.apiKeysFile = keys.path
        guard case .verified = try IngestAuthentication.make(options) else {
            Issue.record("--api-keys makes the API-key verifier")
            return
        }
        try Data("a-raw-key-pasted-here tenant=t patients=* access=all-patients\n".utf8).write(to: keys)
        #expect { _ = try IngestAuthentication.make(options) } throws: { error in
            "\(error)".contains("--api-keys") && "\(error)".contains("line 1") && !"\(error)".contains("a-raw-key")
        }
        options = IngestConfiguration.Authentication()
        options.jwksFile = keys.path
        options.jwtAudience = "a"
        options.jwtIssuer = "i"
        #expect { _ = try IngestAuthentication.make(options) } throws: { "\($0)".contains("--jwks") }
    }

    @Test("Limits are checked; librdkafka's acks and idempotence cannot be weakened; -X never echoes a value")
    func limitsAndSecrets() throws {
        let base = ["--brokers", "k:1", "--insecure-no-auth"]
        // A property file may not weaken the delivery guarantee either (its contents: `false`).
        let weakening = FileManager.default.temporaryDirectory.appendingPathComponent(
            "idempotence-\(UUID().uuidString)")
        try Data("false".utf8).write(to: weakening)
        defer { try? FileManager.default.removeItem(at: weakening) }
        for arguments in [
            ["--max-records", "0"], ["--request-timeout", "0"], ["--max-body-bytes", "100"],
            ["--max-body-bytes", "4194304", "--max-in-flight-bytes", "1048576"], ["--log-level", "loud"],
            ["-X", "acks=1"], ["-X", "enable.idempotence=false"], ["-X", "request.required.acks=0"],
            ["--kafka-property-file", "enable.idempotence=\(weakening.path)"],
        ] {
            #expect(throws: IngestConfigurationError.self, "\(arguments)") { _ = try Self.parse(base + arguments) }
        }
        #expect {
            _ = try Self.parse(base + ["-X", "sasl.password:hunter2"])
        } throws: { error in
            !"\(error)".contains("hunter2") && "\(error)".contains("-X")
        }
    }

    @Test("The ingest process: --help lists every flag with its twin; a configuration error exits 2 without a secret")
    func process() async throws {
        let help = try await runCommand(TestEnvironment.binary("ingest"), ["--help"])
        #expect(help.status == 0)
        for flag in [
            "--http-port", "--brokers", "--topic", "-X", "--catalog", "--max-records", "--max-body-bytes",
            "--max-concurrent-requests", "--max-in-flight-bytes", "--request-timeout", "--idempotency-ttl",
            "--api-keys", "--jwks", "--jwt-audience", "--jwt-issuer", "--jwt-max-lifetime", "--insecure-no-auth",
            "--drain-timeout",
        ] {
            #expect(help.stdout.contains(flag), "\(flag)")
        }
        let noAuth = try await ChildProcess.run(
            TestEnvironment.binary("ingest"), ["--brokers", "127.0.0.1:1"], timeout: .seconds(60))
        #expect(noAuth.status == 2)
        #expect(noAuth.stderr.contains("authentication is required"))
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("dvp-ingest-keys-\(UUID().uuidString)")
        try Data("# keys\nsha256:0123 tenant=t patients=* access=all-patients\n".utf8).write(to: keys)
        defer { try? FileManager.default.removeItem(at: keys) }
        let refused = try await ChildProcess.run(
            TestEnvironment.binary("ingest"),
            ["--brokers", "127.0.0.1:1", "--http-address", "127.0.0.1", "--http-port", "0", "--api-keys", keys.path],
            environment: ["DVP_X_SASL_PASSWORD": "hunter2"], timeout: .seconds(60))
        #expect(refused.status == 2, "a malformed key file: \(refused.stderr)")
        #expect(refused.stderr.contains("--api-keys") && refused.stderr.contains("line 2"))
        #expect(!refused.stderr.contains("hunter2"))
        let catalog = try await runCommand(
            TestEnvironment.binary("ingest"),
            ["--brokers", "127.0.0.1:1", "--insecure-no-auth", "--catalog", "/nonexistent.json"])
        #expect(catalog.status == 2, "\(catalog.stderr)")
        #expect(catalog.stderr.contains("--catalog"))
    }
}
