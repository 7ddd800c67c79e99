import CommandLineOptions
import Essentials
import Kafka

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Reads control commands line by line on a thread of its own (a FIFO or stdin) and answers on stdout.
enum ControlChannel {
    /// Creates the FIFO at `path` (or uses stdin for `-`) and starts reading.
    /// - Throws: a message when the FIFO cannot be created or opened.
    static func start(_ path: String, cluster: KafkaMockCluster) throws(ControlError) {
        if path != "-" {
            unlink(path)
            guard mkfifo(path, 0o600) == 0 else {
                throw ControlError(message: "cannot create FIFO \(path): \(String(cString: strerror(errno)))")
            }
        }
        OSThread.start(name: "devbroker-control") {
            // A FIFO is opened read-write so the open does not block and writers closing never means EOF.
            guard let file = path == "-" ? fdopen(STDIN_FILENO, "r") : fopen(path, "r+") else {
                StandardError.print("devbroker: cannot open control \(path): \(String(cString: strerror(errno)))")
                return
            }
            readLoop(file, cluster: cluster)
        }
    }

    private static func readLoop(_ file: UnsafeMutablePointer<FILE>, cluster: KafkaMockCluster) {
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&buffer, &capacity, file) > 0, let buffer {
            let line = String(cString: buffer).trimmingWhitespace()
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            DevBrokerOutput.line(ControlCommand.run(line, on: cluster))
        }
        free(buffer)
    }
}

/// Line-oriented stdout that is flushed at once (test harnesses read it through a pipe).
enum DevBrokerOutput {
    static func line(_ text: String) {
        FileDescriptorOutput.write(text + "\n", to: STDOUT_FILENO)
    }
}
