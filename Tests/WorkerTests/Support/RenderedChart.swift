import Foundation
import TestSupport

/// `helm template` of `charts/daily-values-worker` with the real helm: the worker containers it renders (the
/// Deployment's and the backfill Job's) and the ingest gateway's, each with its arguments and environment. helm prints YAML; the test venv's
/// PyYAML turns it into JSON.
struct RenderedChart: Sendable {
    static let directory = TestEnvironment.root.appendingPathComponent("charts/daily-values-worker")

    /// One environment entry of a container.
    struct Variable: Sendable, Equatable {
        enum Source: Sendable, Equatable {
            /// `value:`
            case value(String)
            /// `valueFrom.secretKeyRef`
            case secret(name: String, key: String)
            /// `valueFrom.fieldRef` (the pod's own name, …)
            case field(String)
        }

        var name: String
        var source: Source
    }

    /// A container running the worker.
    struct WorkerContainer: Sendable {
        /// `Deployment/<name>` or `Job/<name>`, for messages.
        var owner: String
        var arguments: [String]
        var environment: [Variable]
    }

    /// helm refused the values (schema or template rule); the message is its stderr.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var workerContainers: [WorkerContainer]
    /// The gateway Deployment's container (`ingest.enabled`), the same shape.
    var ingestContainers: [WorkerContainer]

    /// Renders with values.yaml, then each of `files` (paths under the chart, e.g. `ci/postgres-values.yaml`), then each
    /// JSON document in `overrides`; later ones win, as with helm's repeated `-f`.
    static func render(files: [String] = [], overrides: [String] = []) async throws -> RenderedChart {
        let directory = try TestEnvironment.temporaryDirectory("dvp-chart")
        defer { try? FileManager.default.removeItem(at: directory) }
        var arguments = ["template", "dvp", Self.directory.path, "-n", "ingest"]
        for file in files { arguments += ["-f", Self.directory.appendingPathComponent(file).path] }
        for (index, override) in overrides.enumerated() {
            let url = directory.appendingPathComponent("override-\(index).json")
            try Data(override.utf8).write(to: url)
            arguments += ["-f", url.path]
        }
        let helm = try await ChildProcess.run(try await TestHelm.executable().path, arguments)
        guard helm.status == 0 else { throw Failure(description: "helm template failed: \(helm.stderr)") }
        let json = try await ChildProcess.run(
            try await TestPython.executable().path,
            ["-c", "import json, sys, yaml; json.dump([d for d in yaml.safe_load_all(sys.stdin) if d], sys.stdout)"],
            input: .text(helm.stdout))
        guard json.status == 0 else { throw Failure(description: "YAML to JSON failed: \(json.stderr)") }
        guard let objects = try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]] else {
            throw Failure(description: "helm printed no list of objects")
        }
        return RenderedChart(
            workerContainers: objects.flatMap { containers(in: $0, component: nil) },
            ingestContainers: objects.flatMap { containers(in: $0, component: "ingest") })
    }

    /// With `component` nil the worker's: the Deployment's containers, and the backfill Job's (the other Jobs and
    /// CronJobs run `dlq` or `storectl`); with `ingest` the gateway Deployment's.
    private static func containers(in object: [String: Any], component: String?) -> [WorkerContainer] {
        let metadata = object["metadata"] as? [String: Any] ?? [:]
        let labels = metadata["labels"] as? [String: String] ?? [:]
        let kind = object["kind"] as? String ?? ""
        let own = labels["app.kubernetes.io/component"]
        let wanted =
            component == nil
            ? (kind == "Deployment" && own == nil) || (kind == "Job" && own == "backfill")
            : kind == "Deployment" && own == component
        guard wanted else { return [] }
        let spec = (object["spec"] as? [String: Any])?["template"] as? [String: Any]
        let containers = (spec?["spec"] as? [String: Any])?["containers"] as? [[String: Any]] ?? []
        return containers.map { container in
            WorkerContainer(
                owner: "\(kind)/\(metadata["name"] as? String ?? "?")",
                arguments: (container["args"] as? [Any] ?? []).map { "\($0)" },
                environment: (container["env"] as? [[String: Any]] ?? []).map(variable))
        }
    }

    private static func variable(_ entry: [String: Any]) -> Variable {
        let name = entry["name"] as? String ?? ""
        if let value = entry["value"] { return Variable(name: name, source: .value("\(value)")) }
        let from = entry["valueFrom"] as? [String: Any] ?? [:]
        if let secret = from["secretKeyRef"] as? [String: Any] {
            return Variable(
                name: name, source: .secret(name: secret["name"] as? String ?? "", key: secret["key"] as? String ?? ""))
        }
        let field = (from["fieldRef"] as? [String: Any])?["fieldPath"] as? String ?? ""
        return Variable(name: name, source: .field(field))
    }
}
