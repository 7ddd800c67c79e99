import Foundation
import Producer
import Testing

/// Reading input files: JSON lines and JSON arrays keep each record's original bytes and starting line.
@Suite struct JSONRecordReaderTests {
    private func records(_ text: String) throws -> [InputRecord] {
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let file = directory.appendingPathComponent("input")
        try Data(text.utf8).write(to: file)
        let reader = try JSONRecordReader(path: file.path)
        var result: [InputRecord] = []
        while let record = try reader.next() { result.append(record) }
        return result
    }

    private func strings(_ records: [InputRecord]) -> [String] {
        records.map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    @Test func jsonLinesSkipBlankLinesAndAcceptCRLF() throws {
        let records = try records("{\"a\":1}\r\n\n   \n{\"b\": 2}\n{\"c\":3}")
        #expect(strings(records) == [#"{"a":1}"#, #"{"b": 2}"#, #"{"c":3}"#])
        #expect(records.map(\.line) == [1, 4, 5])
        #expect(records.allSatisfy { $0.problem == nil })
    }

    @Test func arrayElementsKeepTheirBytesAndStartLines() throws {
        let text = """

            [ {"s":"a,]}[\\"x"},
              {"n":[1,2,{"m":3}]}
            ,
            {"t":
              1}
            ]
            """
        let records = try records(text)
        #expect(strings(records) == [#"{"s":"a,]}[\"x"}"#, #"{"n":[1,2,{"m":3}]}"#, "{\"t\":\n  1}"])
        #expect(records.map(\.line) == [2, 3, 5])
        #expect(records.allSatisfy { $0.problem == nil })
    }

    @Test func emptyArrayHasNoRecords() throws {
        #expect(try records(" [ ]\n").isEmpty)
    }

    @Test func structuralProblemsBecomeInvalidRecords() throws {
        let unterminated = try records("[{\"a\":1},\n{\"b\":2}")
        #expect(unterminated.last?.problem == "unterminated JSON array")
        #expect(unterminated.last?.line == 2)
        let trailing = try records("[{\"a\":1}]\n\nxyz")
        #expect(trailing.count == 2)
        #expect(trailing.last?.problem == "trailing data after the JSON array")
        #expect(trailing.last?.line == 3)
    }

    @Test func linesLongerThanTheReadChunkAreWhole() throws {
        let long = "{\"note\":\"" + String(repeating: "x", count: 3 << 20) + "\"}"
        let records = try records("{}\n" + long + "\n{}\n")
        #expect(records.map(\.bytes.count) == [2, long.utf8.count, 2])
        #expect(records.map(\.line) == [1, 2, 3])
    }
}
