import Essentials
import StoreCore
import Testing

@Suite struct StoreLocationTests {
    @Test func parsesTheAcceptedForms() throws {
        #expect(try StoreLocation(parsing: "sqlite:/var/lib/dvp/o.db") == .sqlite(path: "/var/lib/dvp/o.db"))
        #expect(try StoreLocation(parsing: "sqlite:relative.db") == .sqlite(path: "relative.db"))
        let url = "postgres://dvp:secret@db:5432/dvp?sslmode=verify-full&application_name=worker"
        #expect(try StoreLocation(parsing: url) == .postgres(connectionString: url))
        #expect(try StoreLocation(parsing: "postgresql://db/dvp") == .postgres(connectionString: "postgresql://db/dvp"))
        #expect(
            try StoreLocation(parsing: "fhir+https://fhir.example.org/r4/") == .fhir(baseURL: "https://fhir.example.org/r4"))
        #expect(
            try StoreLocation(parsing: "fhir+http://127.0.0.1:8080/fhir") == .fhir(baseURL: "http://127.0.0.1:8080/fhir"))
    }

    @Test(arguments: [
        "", "sqlite:", "mysql://db/x", "/tmp/o.db", "host=db dbname=dvp", "SQLITE:/x", "fhir+https://", "https://fhir/r4",
    ])
    func rejectsOtherFormsNamingTheAcceptedOnes(text: String) {
        let error = #expect(throws: StoreError.self) { try StoreLocation(parsing: text) }
        #expect(error?.code == .usage)
        #expect(error?.message.contains("sqlite:PATH") == true && error?.message.contains("postgres://") == true)
        #expect(error?.message.contains("fhir+https://") == true)
    }

    @Test func descriptionHidesThePassword() throws {
        let location = try StoreLocation(parsing: "postgres://dvp:secret@db:5432/dvp?sslmode=require")
        #expect(location.description == "postgres://dvp:***@db:5432/dvp?sslmode=require")
        #expect(try StoreLocation(parsing: "postgres://dvp@db/dvp").description == "postgres://dvp@db/dvp")
    }

    @Test func descriptionHidesAPasswordParameterAndAFHIRQuery() throws {
        let query = try StoreLocation(parsing: "postgres://dvp@db/dvp?sslmode=require&password=s3cret&x=1")
        #expect(query.description == "postgres://dvp@db/dvp?sslmode=require&password=***&x=1")
        let both = try StoreLocation(parsing: "postgresql://dvp:a@db/dvp?password=b")
        #expect(both.description == "postgresql://dvp:***@db/dvp?password=***")
        let keywords = Redaction.maskingPasswords("host=db password='a b' user=dvp passwordless=1")
        #expect(keywords == "host=db password=*** user=dvp passwordless=1")
        let fhir = try StoreLocation(parsing: "fhir+https://fhir.example.org/r4?api_key=s3cret#x")
        #expect(fhir.description == "fhir+https://fhir.example.org/r4")
    }

    @Test func anUnsupportedLocationIsNotEchoed() {
        for text in ["postgress://dvp:s3cret@db/dvp", "postgresql:/dvp:s3cret@db/dvp", "host=db password = s3cret"] {
            let error = #expect(throws: StoreError.self) { try StoreLocation(parsing: text) }
            #expect(error?.message.contains("s3cret") == false && error?.message.contains("unsupported") == true)
        }
    }

    @Test func everyPasswordParameterAndUnencodedUserInfoIsMasked() {
        let cases = [
            ("postgres://u@h/x?sslpassword=S1&bogus=1", "postgres://u@h/x?sslpassword=***&bogus=1"),
            ("postgres://u@h/x?pass%77ord=S1", "postgres://u@h/x?pass%77ord=***"),
            ("postgres://u@h/x?PASSWORD=S1", "postgres://u@h/x?PASSWORD=***"),
            ("host=h password = S1 user=u", "host=h password = *** user=u"),
            ("postgres://dvp:Ab3xS1/zz@h/dvp", "postgres://dvp:***@h/dvp"),
            ("postgres://dvp:Ab3x@S1@h/dvp", "postgres://dvp:***@h/dvp"),
        ]
        for (text, masked) in cases { #expect(Redaction.maskingPasswords(text) == masked, "\(text)") }
        #expect(Redaction.withoutQuery("http://cid:S1@h:9/token?x=1") == "http://h:9/token")
    }

    @Test func aFHIRLocationCarriesNoCredentials() {
        for text in ["fhir+https://u:pw@fhir.example.org/r4", "fhir+http://token@127.0.0.1:8080/fhir"] {
            let error = #expect(throws: StoreError.self) { try StoreLocation(parsing: text) }
            #expect(error?.code == .usage && error?.message.contains("must not carry credentials") == true, "\(text)")
            #expect(error?.message.contains("pw") == false)
        }
        #expect(throws: Never.self) { try StoreLocation(parsing: "fhir+https://fhir.example.org/r4?x=a@b") }
    }
}
