import Foundation
import ObservationMapping
import TestSupport
import Testing

@testable import WorkerCore

/// The issue 12 mapper flags: `--subject-reference`, `--patient-identifier-system`, `--store-device-name` (and their
/// `DVP_*` twins), their bad combinations, and the worker process's exit status 2 with the reason on stderr.
@Suite("Worker mapper flags")
struct WorkerMapperFlagsTests {
    static let base = ["--brokers", "b:1", "--allow-development-key"]

    static func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> WorkerConfiguration {
        try #require(try WorkerConfiguration.parse(base + arguments, environment: environment))
    }

    @Test func defaultsAreALiteralSubjectAndNoDeviceName() throws {
        let config = try Self.parse([])
        #expect(config.subject == .literal)
        #expect(!config.storesDeviceName)
    }

    @Test func logicalSubjectWithItsSystem() throws {
        let config = try Self.parse([
            "--subject-reference", "logical", "--patient-identifier-system", "https://hospital.example/mrn",
            "--store-device-name",
        ])
        #expect(config.subject == .logical(system: "https://hospital.example/mrn"))
        #expect(config.storesDeviceName)
        #expect(try Self.parse(["--subject-reference", "literal"]).subject == .literal)
    }

    @Test func environmentTwins() throws {
        let config = try Self.parse(
            [],
            environment: [
                "DVP_SUBJECT_REFERENCE": "logical", "DVP_PATIENT_IDENTIFIER_SYSTEM": "urn:oid:2.16.840.1.113883.4.1",
                "DVP_STORE_DEVICE_NAME": "true",
            ])
        #expect(config.subject == .logical(system: "urn:oid:2.16.840.1.113883.4.1"))
        #expect(config.storesDeviceName)
    }

    @Test(arguments: [
        (["--subject-reference", "logical"], "needs --patient-identifier-system"),
        (
            ["--patient-identifier-system", "https://hospital.example/mrn"],
            "only used with --subject-reference logical"
        ),
        (
            ["--subject-reference", "literal", "--patient-identifier-system", "https://hospital.example/mrn"],
            "only used with --subject-reference logical"
        ),
        (["--subject-reference", "Logical"], "is not one of literal, logical"),
    ])
    func badCombinationsAreConfigurationErrors(_ arguments: [String], _ message: String) {
        #expect {
            _ = try Self.parse(arguments)
        } throws: { error in
            guard case .configuration(let text) = error as? WorkerError else { return false }
            return text.contains(message)
        }
    }

    /// The process: a bad combination, a flag given a value, or a system that is not a URI exits 2 with the reason.
    @Test(arguments: [
        (["--subject-reference", "logical"], "--subject-reference logical needs --patient-identifier-system URI"),
        (["--patient-identifier-system", "urn:x"], "only used with --subject-reference logical"),
        (["--store-device-name=yes"], "--store-device-name takes no value"),
        (
            ["--subject-reference", "logical", "--patient-identifier-system", "not a uri"],
            "must be an absolute URI"
        ),
    ])
    func theWorkerExitsWithStatus2(_ arguments: [String], _ message: String) async throws {
        let directory = try TestEnvironment.temporaryDirectory("dvp-worker-flags")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await ChildProcess.run(
            TestEnvironment.binary("worker"),
            [
                "--brokers", "127.0.0.1:1", "--allow-development-key", "--http-port", "0",
                "--store", "sqlite:\(directory.path)/observations.sqlite",
            ] + arguments,
            timeout: .seconds(60))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
