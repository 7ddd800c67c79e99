import Foundation
import TestSupport

/// Hostile records written with kcat, an independent Kafka client, as a new user would.
extension PipelineHarness {
    /// A valid steps event (version 1) for `patient` three days ago, and its identity `patient/steps/day`.
    static func validEvent(_ patient: String) -> (identity: String, json: String) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        let date = formatter.string(from: Date().addingTimeInterval(-3 * 86_400))
        let json = #"{"schema":1,"patient":"\#(patient)","metric":"steps","day":"\#(date)","utcOffset":"+01:00","#
            + #""value":1000,"version":1}"#
        return ("\(patient)/steps/\(date)", json)
    }

    /// Runs `kcat -P -b <bootstrap> -t <topic> -p <partition>` with `arguments`, reading `input`.
    func kcat(partition: Int32, _ arguments: [String], input: ChildProcess.Input) async throws {
        let result = try await ChildProcess.run(
            "/usr/bin/kcat",
            ["-P", "-b", bootstrap, "-t", topic, "-p", "\(partition)", "-X", "log_level=3"] + arguments, input: input)
        guard result.status == 0 else { throw TestSetupError("kcat \(arguments.prefix(4)) failed: \(result.stderr)") }
    }

    /// Writes one record of each hostile shape to `partition`, then `validAfter` valid events behind them.
    /// - Returns: how many poison records, and the identities of the valid events (each at version 1).
    @discardableResult
    func publishPoisonRecords(partition: Int32, validAfter: Int, tag: String = "") async throws
        -> (poison: Int, valid: [String])
    {
        // The issue's record: an 898,997-byte value and a 100,600-byte header.
        let big = directory.appendingPathComponent("big\(tag).bin")
        try Data(repeating: UInt8(ascii: "x"), count: 898_997).write(to: big)
        try await kcat(partition: partition, ["-k", "bigpoison\(tag)", "-H", "big=" + String(repeating: "b", count: 100_600),
                                              big.path], input: .none)
        // A 1 MB key (kcat's own limit raised to send it; the topic takes it).
        let bigKey = directory.appendingPathComponent("bigkey\(tag).txt")
        try Data((String(repeating: "k", count: 1_000_000) + ":{}\n").utf8).write(to: bigKey)
        try await kcat(partition: partition, ["-K:", "-X", "message.max.bytes=1100000"], input: .file(bigKey))
        // 1,000 headers.
        let headers = (1...1000).flatMap { ["-H", "h\($0)=value-\($0)"] }
        try await kcat(partition: partition, ["-K:"] + headers, input: .text("headers\(tag):{\"schema\":1}\n"))
        // A null value (tombstone) and an empty value.
        try await kcat(partition: partition, ["-K:", "-Z"], input: .text("tombstone\(tag):\n"))
        try await kcat(partition: partition, ["-K:"], input: .text("empty\(tag):\n"))
        let patients = (0..<validAfter).map { "after-poison\(tag)-\($0)" }
        try await kcat(partition: partition, ["-K", "\\t"],
                       input: .text(patients.map { "\($0)\t\(Self.validEvent($0).json)\n" }.joined()))
        return (5, patients.map { Self.validEvent($0).identity })
    }
}
