import Foundation
import TestSupport
import Testing

/// Memory follows bytes, not records: a few KB of gzip that inflate to a million tiny records are refused after
/// the first record past `--max-records` is counted, before the rest is inflated or any record is made, so many
/// at once cost the gateway little while valid requests beside them are served.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct IngestRecordBombTests {
    /// The chart's memory request for the gateway (`ingest.resources.requests.memory`, 256Mi), in KiB.
    static let chartMemoryRequestKiB = 256 * 1024

    @Test("32 gzip bodies of ~1.4 million records each at once, beside valid traffic: 413s, 202s, peak RSS < 256 MiB")
    func recordBombsBesideValidTraffic() async throws {
        let stack = try GatewayStack()
        try await stack.startBroker()
        try await stack.startGateway(["--insecure-no-auth"])
        // `[{},{},…]` just under the 4 MiB --max-body-bytes once inflated: 1.4 million records in ~4 KB of gzip.
        let records = (4 * 1024 * 1024 - 2) / 3
        let plain = try stack.file("bomb.json", "[" + String(repeating: "{},", count: records - 1) + "{}]")
        let lines = try stack.file("bomb.ndjson", String(repeating: "{}\n", count: records))
        var bombs: [URL] = []
        for source in [plain, lines] {
            let zipped = URL(fileURLWithPath: source.path + ".gz")
            #expect(
                try await runCommand("/bin/sh", ["-c", "gzip -9 -c '\(source.path)' > '\(zipped.path)'"]).status == 0)
            bombs.append(zipped)
        }
        let valid = try stack.file(
            "valid.json", TestEvents.array(try await TestEvents.lines(100, in: stack.directory)))
        let pid = try #require(stack.gateway?.pid)
        let before = try IngestPublishTests.peakResidentKiB(pid: pid)

        let answers = try await withThrowingTaskGroup(of: (bomb: Bool, status: Int, text: String).self) { group in
            for index in 0..<32 {
                let bomb = bombs[index % 2]
                let type = index % 2 == 0 ? "application/json" : "application/x-ndjson"
                group.addTask {
                    let answer = try await stack.curl(
                        CurlResponse.post(stack.url, file: bomb, contentType: type, headers: ["Content-Encoding: gzip"])
                    )
                    return (true, answer.status, answer.text)
                }
            }
            for _ in 0..<16 {
                group.addTask {
                    let answer = try await stack.curl(CurlResponse.post(stack.url, file: valid))
                    return (false, answer.status, answer.text)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let bombAnswers = answers.filter(\.bomb)
        let validAnswers = answers.filter { !$0.bomb }
        #expect(bombAnswers.count == 32)
        #expect(
            bombAnswers.allSatisfy { $0.status == 413 && $0.text.contains("more than 10000 records") },
            "\(bombAnswers.filter { $0.status != 413 }.prefix(3).map { "\($0.status) \($0.text.prefix(200))" })")
        #expect(validAnswers.allSatisfy { $0.status == 202 }, "\(validAnswers.map(\.status))")
        let peak = try IngestPublishTests.peakResidentKiB(pid: pid)
        #expect(peak < Self.chartMemoryRequestKiB, "peak RSS \(peak) KiB (\(before) KiB before the bombs)")
        #expect(try await stack.records().count == 16 * 100)
    }
}
