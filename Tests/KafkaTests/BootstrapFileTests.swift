import Kafka
import Testing

@Suite("devbroker bootstrap file")
struct BootstrapFileTests {
    @Test("Written by devbroker: the list on line 1, the marker on line 2; reads back the same")
    func roundTrip() {
        let file = KafkaBootstrapFile(
            bootstrapServers: "127.0.0.1:40001,127.0.0.1:40002", isDevelopmentBroker: true)
        #expect(file.text == "127.0.0.1:40001,127.0.0.1:40002\n\(KafkaBootstrapFile.marker)\n")
        #expect(KafkaBootstrapFile(parsing: file.text) == file)
        #expect(file.isLocalDevelopmentBroker)
    }

    @Test("A plain file (one line, comments, blank lines) is not a devbroker's")
    func plainFile() {
        let file = KafkaBootstrapFile(parsing: "\n# our cluster\n  127.0.0.1:9092  \n")
        #expect(file.bootstrapServers == "127.0.0.1:9092")
        #expect(!file.isDevelopmentBroker && !file.isLocalDevelopmentBroker)
    }

    @Test("The marker does not make a remote list local")
    func markerWithRemoteAddress() {
        let text = "kafka-1.prod:9092,127.0.0.1:9092\n\(KafkaBootstrapFile.marker)\n"
        #expect(!KafkaBootstrapFile(parsing: text).isLocalDevelopmentBroker)
    }

    @Test(
        "Loopback-only lists",
        arguments: [
            ("127.0.0.1:9092", true),
            ("127.3.2.1:1,localhost:2,LOCALHOST:3", true),
            ("[::1]:9092", true),
            ("PLAINTEXT://127.0.0.1:9092,SSL://[::1]:9093", true),
            ("::1", true),
            ("127.0.0.1", true),
            ("", false),
            ("10.0.0.1:9092", false),
            ("127.0.0.1:9092,10.0.0.1:9092", false),
            ("128.0.0.1:9092", false),
            ("[::ffff:127.0.0.1]:9092", false),
            ("127.example.org:9092", false),
            ("localhost.example.org:9092", false),
            ("kafka:9092", false),
        ])
    func loopback(list: String, expected: Bool) {
        #expect(KafkaBootstrapFile.isLoopbackOnly(list) == expected)
    }
}
