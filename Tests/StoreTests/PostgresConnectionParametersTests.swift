import PostgresClient
import Testing

/// The merge of a user's libpq connection string over the store's bounded defaults (no server needed).
@Suite struct PostgresConnectionParametersTests {
    static let defaultOptions = "-c statement_timeout=30s -c lock_timeout=10s"

    private func merged(_ text: String, environment: [String: String] = [:]) throws -> [String: String] {
        try PostgresConnectionParameters(connectionString: text, applicationName: "dvp-test", environment: environment)
            .values
    }

    @Test(arguments: [
        "postgresql://dvp@db:5433/obs?sslmode=require", "host=db port=5433 user=dvp dbname=obs sslmode=require",
    ])
    func defaultsFillWhatTheStringLeavesOut(text: String) throws {
        let values = try merged(text)
        #expect(values["host"] == "db" && values["port"] == "5433" && values["user"] == "dvp")
        #expect(values["dbname"] == "obs" && values["sslmode"] == "require")
        #expect(values["connect_timeout"] == "10")
        #expect(values["keepalives"] == "1" && values["keepalives_idle"] == "30")
        #expect(values["keepalives_interval"] == "10" && values["keepalives_count"] == "3")
        #expect(values["tcp_user_timeout"] == "30000")
        #expect(values["fallback_application_name"] == "dvp-test" && values["application_name"] == nil)
        #expect(values["options"] == Self.defaultOptions)
        #expect(values["client_encoding"] == "UTF8")
    }

    @Test(arguments: [
        "postgresql://db/obs?connect_timeout=3&keepalives=0&tcp_user_timeout=5000&application_name=ops"
            + "&options=-c%20statement_timeout%3D5s",
        "host=db dbname=obs connect_timeout=3 keepalives=0 tcp_user_timeout=5000 application_name=ops "
            + "options='-c statement_timeout=5s'",
    ])
    func whatTheStringSetsWins(text: String) throws {
        let parameters = try PostgresConnectionParameters(
            connectionString: text, applicationName: "dvp-test", environment: [:])
        let values = parameters.values
        #expect(values["connect_timeout"] == "3" && parameters.connectTimeout == .seconds(3))
        #expect(values["keepalives"] == "0" && values["tcp_user_timeout"] == "5000")
        #expect(values["keepalives_idle"] == "30", "the defaults the string does not mention stay")
        #expect(values["application_name"] == "ops")
        // The user's -c switches come last: the server applies them in order, so they override the defaults.
        #expect(values["options"] == Self.defaultOptions + " -c statement_timeout=5s")
    }

    @Test func libpqEnvironmentVariablesWinOverDefaults() throws {
        let parameters = try PostgresConnectionParameters(
            connectionString: "postgresql://db/obs", applicationName: "dvp-test",
            environment: ["PGCONNECT_TIMEOUT": "4", "PGOPTIONS": "-c lock_timeout=2s"])
        #expect(parameters.values["connect_timeout"] == nil, "left to libpq, which reads PGCONNECT_TIMEOUT")
        #expect(parameters.connectTimeout == .seconds(4))
        #expect(parameters.values["options"] == Self.defaultOptions + " -c lock_timeout=2s")
    }

    @Test func connectTimeoutFollowsLibpqRules() throws {
        #expect(
            try PostgresConnectionParameters(
                connectionString: "connect_timeout=1", applicationName: "t", environment: [:]
            ).connectTimeout == .seconds(2))
        #expect(
            try PostgresConnectionParameters(
                connectionString: "connect_timeout=0", applicationName: "t", environment: [:]
            ).connectTimeout == nil)
    }

    @Test func forcedUTF8AndOwnFallbackName() throws {
        let values = try merged("client_encoding=LATIN1 fallback_application_name=mine")
        #expect(values["client_encoding"] == "UTF8")
        #expect(values["fallback_application_name"] == "mine")
    }

    @Test(arguments: ["postgresql://db/obs?no_such_parameter=1", "host=db bogus=1", "host='unterminated"])
    func unparsableStringsAreUsageErrors(text: String) {
        let error = #expect(throws: PostgresError.self) { try merged(text) }
        #expect(error?.code == .usage && error?.isRetriable == false)
        #expect(error?.message.hasPrefix("invalid PostgreSQL connection string: ") == true)
    }

    /// libpq quotes what it could not parse, which may be the password: its text is withheld then.
    @Test(arguments: [
        "postgresql://dvp:MARKER-S3CR3T-4242%zz@db/obs", "postgresql://db/obs?password=MARKER-S3CR3T-4242%zz",
        "host=db password='MARKER-S3CR3T-4242",
    ])
    func libpqTextIsWithheldForStringsWithAPassword(text: String) {
        let error = #expect(throws: PostgresError.self) { try merged(text) }
        #expect(error?.code == .usage)
        #expect(error.map { !"\($0)".contains("MARKER-S3CR3T-4242") } == true, "\(String(describing: error))")
        #expect(error?.message.contains("withheld") == true)
    }
}

extension PostgresConnectionParametersTests {
    /// libpq ends the user info at the first `@` and the authority at the first `/`: an unencoded one in a password
    /// would make part of it the host or the port, which connection errors print. Refused before libpq sees it.
    @Test(arguments: ["postgres://dvp:Ab3xS3CRET/zz@127.0.0.1/dvp", "postgresql://dvp:Ab3x@S3CRET@127.0.0.1/dvp"])
    func unencodedUserInfoIsRefusedWithoutItsText(_ text: String) {
        let error = #expect(throws: PostgresError.self) { try self.merged(text) }
        #expect(error?.message.contains("percent-encoded") == true)
        #expect(error?.message.contains("S3CRET") == false)
        #expect(throws: Never.self) { try self.merged("postgres://dvp:Ab3x%40S3CRET%2Fzz@127.0.0.1/dvp") }
    }
}
