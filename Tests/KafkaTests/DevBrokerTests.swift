import Foundation
import Kafka
import TestSupport
import Testing

@Suite("devbroker executable", .serialized, .timeLimit(.minutes(2)))
struct DevBrokerTests {
    @Test("serves produce/consume through the bootstrap file, answers control commands, exits 0 on SIGTERM")
    func endToEnd() async throws {
        let directory = try TestEnvironment.temporaryDirectory("devbroker")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bootstrapFile = directory.appendingPathComponent("bootstrap")
        // The built devbroker (the test fails if it is missing); control commands go to its stdin.
        let child = try ChildProcess(
            try TestEnvironment.requireBinary("devbroker").path,
            [
                "--brokers", "2", "--topic", "events:2", "--bootstrap-file", bootstrapFile.path,
                "--control", "-",
            ], directory: directory, input: .pipe)
        let process = child.process
        let output = child.stdoutURL
        let control = try #require(child.input)
        defer { child.terminate() }

        let ready = await KafkaTestSupport.waitUntil(within: .seconds(10)) {
            FileManager.default.fileExists(atPath: bootstrapFile.path)
        }
        #expect(ready)
        let file = KafkaBootstrapFile(parsing: try String(contentsOf: bootstrapFile, encoding: .utf8))
        let bootstrap = file.bootstrapServers
        #expect(bootstrap.split(separator: ",").count == 2)
        #expect(file.isDevelopmentBroker && file.isLocalDevelopmentBroker)
        let firstLine = try String(contentsOf: bootstrapFile, encoding: .utf8).split(separator: "\n").first
        #expect(firstLine.map(String.init) == bootstrap, "line 1 stays the bare list for first-line readers")

        // Produce and read back through the broker process.
        let producer = try KafkaProducer(configuration: KafkaTestSupport.producerConfiguration(bootstrap))
        let reports = try await producer.send(KafkaTestSupport.messages(topic: "events", count: 20)).map {
            try $0.get()
        }
        #expect(Set(reports.map(\.partition)) == [0, 1])
        await producer.close(timeout: .seconds(5))
        let back = try await KafkaConsumer.readAll(topic: "events", bootstrapServers: bootstrap)
        #expect(back.map(\.valueString).sorted() == (0..<20).map(String.init).sorted())

        // Control commands are answered on stdout.
        control.write(Data("create extra 5\nfrobnicate\n".utf8))
        let answered = await KafkaTestSupport.waitUntil(within: .seconds(5)) {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            return text.contains("ok create extra 5") && text.contains("error frobnicate")
        }
        #expect(answered)

        process.terminate()  // SIGTERM
        let exited = await KafkaTestSupport.waitUntil(within: .seconds(10)) { !process.isRunning }
        #expect(exited)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }
}
