import CommandLineOptions
import DailyValueContract
import DocumentCompression
import Foundation
import ObservationMapping

/// `dvp-test-tools document-samples`: the documents the stores would compress for a file of DailyValue events (one
/// file per mapped Observation), the training set of `scripts/train-document-dictionary.sh`.
enum DocumentSamples {
    static let usage = "document-samples --events FILE --out DIR [--every K]"
    static let parser = CommandLineParser(
        [
            .value("--events", "FILE", help: "DailyValue events, one JSON object per line (`producer generate --out`)"),
            .value("--out", "DIR", help: "a directory for the samples (created)"),
            .value("--every", "K", help: "keep every K-th valid event (default 1)"),
        ], repeats: .rejected)

    static func run(_ arguments: ParsedCommandLine) async throws -> Int32 {
        guard let events = arguments.value("--events"), let outPath = arguments.value("--out") else {
            throw UsageError(option: "--events", "--events and --out are required")
        }
        let out = URL(fileURLWithPath: outPath)
        let every = try arguments.integer("--every", in: 1...1_000_000) ?? 1
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        var (valid, written) = (0, 0)
        for record in try MappedEvents.records(ofFile: events, idKey: "document-samples-id-key") {
            valid += 1
            guard valid % every == 0 else { continue }
            let content = DocumentCompressor.content(
                of: [record.resourceHeadUTF8, record.resourceTailUTF8, record.resourceAfterStatusUTF8])
            try Data(content).write(to: out.appendingPathComponent(String(format: "%07d", written)))
            written += 1
        }
        print("document-samples: \(written) samples of \(valid) valid events in \(out.path)")
        return 0
    }
}
