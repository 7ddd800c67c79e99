import Kafka
import Testing

@Suite("devbroker bootstrap file")
struct BootstrapFileTests {
    @Test("Written by devbroker: the list on line 1, the marker on line 2; reads back the same")
    func roundTrip() {
        let file = KafkaMockCluster.BootstrapFile(
            bootstrapServers: "127.0.0.1:40001,127.0.0.1:40002", writtenByDevBroker: true)
        #expect(file.text == "127.0.0.1:40001,127.0.0.1:40002\n\(KafkaMockCluster.BootstrapFile.marker)\n")
        #expect(KafkaMockCluster.BootstrapFile(parsing: file.text) == file)
        #expect(file.isLocalDevBroker)
    }

    @Test("A plain file (one line, comments, blank lines) is not a devbroker's")
    func plainFile() {
        let file = KafkaMockCluster.BootstrapFile(parsing: "\n# our cluster\n  127.0.0.1:9092  \n")
        #expect(file.bootstrapServers == "127.0.0.1:9092")
        #expect(!file.writtenByDevBroker && !file.isLocalDevBroker)
    }

    @Test("The marker does not make a remote list local")
    func markerWithRemoteAddress() {
        let text = "kafka-1.prod:9092,127.0.0.1:9092\n\(KafkaMockCluster.BootstrapFile.marker)\n"
        #expect(!KafkaMockCluster.BootstrapFile(parsing: text).isLocalDevBroker)
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
        #expect(KafkaMockCluster.BootstrapFile.isLoopbackOnly(list) == expected)
    }
}
