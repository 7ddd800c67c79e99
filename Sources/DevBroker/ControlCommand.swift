import Essentials
import Kafka

/// One fault-injection command of the control channel (see `devbroker --help`).
enum ControlCommand {
    /// Runs one command line against `cluster`.
    /// - Returns: the answer line, `ok …` or `error …`.
    static func run(_ line: String, on cluster: KafkaMockCluster) -> String {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let verb = words.first else { return "error empty command" }
        do {
            let detail = try execute(verb, Array(words.dropFirst()), on: cluster)
            return "ok \(line.trimmingWhitespace())" + (detail.map { " \($0)" } ?? "")
        } catch let error as KafkaError {
            return "error \(line.trimmingWhitespace()): \(error)"
        } catch {
            return "error \(line.trimmingWhitespace()): \(error)"
        }
    }

    private static func execute(_ verb: String, _ args: [String], on cluster: KafkaMockCluster) throws -> String? {
        switch (verb, args.count) {
        case ("down", 1): try cluster.setBrokerDown(int32(args[0]))
        case ("up", 1): try cluster.setBrokerUp(int32(args[0]))
        case ("rtt", 2):
            let broker = try int32(args[0])
            try cluster.setBrokerRTT(broker == -1 ? nil : broker, milliseconds: Int(int32(args[1])))
        case ("leader", 3):
            let broker = try int32(args[2])
            try cluster.setPartitionLeader(
                topic: args[0], partition: int32(args[1]), broker: broker == -1 ? nil : broker)
        case ("coord", 2): try cluster.setCoordinator(group: args[0], broker: int32(args[1]))
        case ("err", 3):
            cluster.pushRequestErrors(
                apiKey: try int16(args[0]), code: try code(args[1]), count: Int(try int32(args[2])))
        case ("berr", 4):
            try cluster.pushBrokerRequestError(
                broker: int32(args[0]), apiKey: int16(args[1]), code: code(args[2]), rttMs: Int(int32(args[3])))
        case ("clear", 1): cluster.clearRequestErrors(apiKey: try int16(args[0]))
        case ("topicerr", 2): cluster.setTopicError(args[0], code: try code(args[1]))
        case ("create", 2): try cluster.createTopic(args[0], partitions: Int(int32(args[1])))
        default:
            throw ControlError(message: "unknown command or wrong argument count (see devbroker --help)")
        }
        return nil
    }

    private static func int32(_ text: String) throws -> Int32 {
        guard let value = Int32(text) else { throw ControlError(message: "'\(text)' is not an integer") }
        return value
    }

    private static func int16(_ text: String) throws -> Int16 {
        guard let value = Int16(text) else { throw ControlError(message: "'\(text)' is not an API key") }
        return value
    }

    private static func code(_ text: String) throws -> KafkaError.Code {
        KafkaError.Code(rawValue: try int32(text))
    }
}

struct ControlError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
