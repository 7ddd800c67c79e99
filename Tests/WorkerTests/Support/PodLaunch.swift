import CommandLineOptions
import Foundation
import TestSupport

@testable import WorkerCore

/// A rendered worker container's command line and environment as the worker sees them in its pod: every file the pod
/// would have mounted (Secrets, ConfigMaps under `/etc/daily-values/`) is a file under `files` instead, every Secret
/// reference a placeholder value, every field reference the pod's name.
struct PodLaunch {
    var arguments: [String]
    var environment: [String: String]

    static let mountRoot = "/etc/daily-values/"
    static let storeURI = "postgres://dvp@postgres.ingest.test:5432/observations"

    init(_ container: RenderedChart.WorkerContainer, files: URL) throws {
        arguments = container.arguments
        environment = [:]
        for variable in container.environment {
            switch variable.source {
            case .value(let value) where value.hasPrefix(Self.mountRoot):
                let file = files.appendingPathComponent(String(value.dropFirst(Self.mountRoot.count)))
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                let contents =
                    ["DVP_STORE_FILE", "DVP_ERASURE_STORE_FILE"].contains(variable.name)
                    ? Self.storeURI : "test contents of \(variable.name)"
                try Data((contents + "\n").utf8).write(to: file)
                environment[variable.name] = file.path
            case .value(let value):
                environment[variable.name] = value
            case .secret(let name, let key):
                environment[variable.name] = variable.name == "DVP_STORE" ? Self.storeURI : "secret \(name)/\(key)"
            case .field:
                environment[variable.name] = "dvp-daily-values-worker-5d8f7-abcde"
            }
        }
    }

    /// What `WorkerConfiguration.parse` makes of it: every stored property as `path = value` lines, or the error.
    func parsed() -> Result<[String], WorkerError> {
        do {
            guard let configuration = try WorkerConfiguration.parse(arguments, environment: environment) else {
                return .failure(.configuration("--help"))
            }
            return .success(ConfigurationLines.of(configuration))
        } catch let error as WorkerError {
            return .failure(error)
        } catch {
            return .failure(.configuration("\(error)"))
        }
    }

    /// The launch without one environment variable.
    func removing(variable name: String) -> PodLaunch {
        var launch = self
        launch.environment[name] = nil
        return launch
    }

    /// The command line as options, each with its value when it takes one (`["--start", "earliest"]`).
    var options: [[String]] {
        var groups: [[String]] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let option = WorkerOptions.parser.options.first { $0.names.contains(argument) }
            let takesValue = option.map { $0.kind != .flag } ?? false
            let count = takesValue && index + 1 < arguments.count ? 2 : 1
            groups.append(Array(arguments[index..<index + count]))
            index += count
        }
        return groups
    }

    /// The launch without one option (and its value).
    func removing(option: [String]) -> PodLaunch {
        var launch = self
        let groups = options
        launch.arguments = groups.filter { $0 != option }.flatMap { $0 }
        return launch
    }
}

/// Every stored property of a value as sorted `path = value` lines (dictionary entries and set members sorted), so two
/// parsed configurations compare equal exactly when every setting agrees, and the difference names the setting.
enum ConfigurationLines {
    static func of(_ value: Any) -> [String] {
        var lines: [String] = []
        collect(value, path: "", into: &lines)
        return lines.sorted()
    }

    private static func collect(_ value: Any, path: String, into lines: inout [String]) {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            if let some = mirror.children.first {
                collect(some.value, path: path, into: &lines)
            } else {
                lines.append("\(path) = nil")
            }
        case .dictionary, .set:
            let members = mirror.children.map { "\($0.value)" }.sorted()
            lines.append("\(path) = [\(members.joined(separator: ", "))]")
        case .collection:
            lines.append("\(path) = [\(mirror.children.map { "\($0.value)" }.joined(separator: ", "))]")
        case .enum where mirror.children.isEmpty:
            lines.append("\(path) = \(value)")
        case .struct, .class, .tuple, .enum:
            for (index, child) in mirror.children.enumerated() {
                let label = child.label ?? "\(index)"
                collect(child.value, path: path.isEmpty ? label : "\(path).\(label)", into: &lines)
            }
        default:
            lines.append("\(path) = \(value)")
        }
    }
}
