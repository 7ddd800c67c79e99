import DailyValueContract
import DocumentCompression
import Foundation
import JSON
import ObservationMapping
import StoreCore
import Testing

/// The stored document's codec (Sources/DocumentCompression, docs/STORAGE.md): parts come back exactly, every
/// metric's Observation is small, and every damaged or foreign document is a ``DocumentError``, never a crash.
@Suite struct DocumentCompressionTests {
    static func document(_ parts: [String]) -> [UInt8] {
        DocumentCompressor().compress(parts.map { Array($0.utf8)[...] })
    }

    @Test(arguments: [
        ["{\"a\":{", "\"b\":1}}"], ["", ""], ["x"], ["{", "\"status\":", ",\"x\":[1,2]}"],
        [String(repeating: "héllo ", count: 20_000), "", "tail"],
    ])
    func partsComeBackExactly(parts: [String]) throws {
        let (content, ranges) = try DocumentDecompressor().parts(of: Self.document(parts))
        #expect(ranges.map { String(decoding: content[$0], as: UTF8.self) } == parts)
    }

    /// Every built-in metric's mapped Observation, through the store's own parts, is whole again after a round trip,
    /// and far smaller than its JSON (the dictionary knows the mapper's text).
    @Test func everyMetricRoundTripsAndShrinks() throws {
        let (compressor, decompressor) = (DocumentCompressor(), DocumentDecompressor())
        for metric in MetricCatalog.builtin.metrics.values {
            let record = try Fixtures.mapper.map(ObservationSamples.value(for: metric), recordTimestampMs: 1)
            let document = compressor.compress(StoredDocument.parts(of: record))
            let (content, parts) = try decompressor.parts(of: document)
            let resource = StoredDocument.resource(
                content, parts: parts, versionId: 3, lastUpdated: "2026-10-02T06:00:00.000Z",
                status: record.status?.rawValue)
            let expected =
                record.resourceHead + #""versionId":"3","lastUpdated":"2026-10-02T06:00:00.000Z","#
                + record.resourceTail + "\"\(record.status!.rawValue)\"" + record.resourceAfterStatus
            #expect(resource == expected, "\(metric.key)")
            #expect(document.count * 4 < record.resource.utf8.count, "\(metric.key): \(document.count) bytes")
        }
    }

    /// The mapper's facts are what the resource itself says (the columns a migrated schema-3 row gets from its
    /// resource agree with those a new row gets from the event).
    @Test func factsOfTheMapperEqualFactsReadFromTheResource() throws {
        for metric in MetricCatalog.builtin.metrics.values {
            for day in ObservationSamples.days {
                let value = ObservationSamples.value(for: metric, day: day.day, zone: day.zone)
                let record = try Fixtures.mapper.map(value, recordTimestampMs: 1)
                let resource = try JSONValue.parse(Array(record.resource.utf8), maxDepth: 32)
                let facts = try #require(record.facts, "\(metric.key)")
                #expect(ObservationFacts(resource: resource, metric: metric) == facts, "\(metric.key) \(day.day)")
                #expect(facts.periodEnd - facts.periodStart == Int64(day.hours * 3600), "\(metric.key) \(day.day)")
            }
        }
    }

    @Test func damagedDocumentsAreErrors() throws {
        let good = Self.document(["{\"a\":{", "\"b\":1}}"])
        var unknownDictionary = good
        unknownDictionary[2] ^= 0x40  // the frame header's dictionary id (after the format and descriptor bytes)
        var flipped = good
        flipped[flipped.count - 3] ^= 0xFF
        let cases: [(String, [UInt8], String)] = [
            ("empty", [], "empty"), ("unknown format", [2] + good.dropFirst(), "unknown format 2"),
            ("format byte only", [1], "corrupt"), ("truncated", Array(good.dropLast(3)), "corrupt frame"),
            ("unknown dictionary", unknownDictionary, "dictionary"),
            ("garbage", Array(repeating: 0x01, count: 64), "corrupt"),
            ("flipped bits", flipped, ""),
        ]
        let decompressor = DocumentDecompressor()
        for (name, bytes, fragment) in cases {
            do {
                let (content, ranges) = try decompressor.parts(of: bytes)
                // A flipped literal can still decode (no checksum: the store's own page checksums guard the disk);
                // then the parts must still lie inside the content.
                #expect(name == "flipped bits" && ranges.allSatisfy { $0.upperBound <= content.count }, "\(name)")
            } catch {
                #expect(fragment.isEmpty || error.message.contains(fragment), "\(name): \(error)")
            }
        }
        // The decompressor still works after every failure.
        #expect(try decompressor.parts(of: good).ranges.count == 2)
    }

    /// A random-bytes fuzz of the reader: it throws or returns parts inside the content, never traps.
    @Test func randomDocumentsNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        let decompressor = DocumentDecompressor()
        let good = Self.document(["{\"resourceType\":\"Observation\",\"meta\":{", "}}"])
        for round in 0..<2_000 {
            var bytes = good
            for _ in 0...(round % 4) {
                bytes[Int.random(in: 1..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if let (content, ranges) = try? decompressor.parts(of: bytes) {
                #expect(ranges.allSatisfy { $0.lowerBound >= 0 && $0.upperBound <= content.count })
            }
        }
    }
}
