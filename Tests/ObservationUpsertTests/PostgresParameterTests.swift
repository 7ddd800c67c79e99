import Essentials
import Foundation
import PostgresClient
import Testing
import TestSupport

@testable import ObservationUpsert

/// Arrays bound in PostgreSQL's binary format arrive byte-exact: what the server unnests is what was bound, for the
/// bytes a text literal would have had to escape and for the integer extremes.
@Suite struct PostgresParameterTests {
    static let texts = [
        #"{"resourceType":"Observation","text":"a \"quoted\" \\ backslash"}"#, "", "NULL", "{}", "a,b", " spaced ",
        "Zoë 🫀 日本語", "tab\there\nnewline", String(repeating: "x", count: 70_000),
    ]
    static let integers: [Int64] = [0, 1, -1, 255, 256, 65_536, Int64(Int32.max) + 1, Int64.max, Int64.min, -4_294_967_296]

    @Test func textAndBigintArraysRoundTrip() async throws {
        let url = try await TestStores.postgresURL()
        let box = QueueConfined(label: "test.binary-arrays", ())
        let (texts, integers, empty) = try await box.run { _ in
            let connection = try PostgresConnection(connectionString: url, options: PostgresClientOptions())
            let texts = try connection.executePrepared(
                "t", "SELECT t, length(t) FROM unnest($1::text[]) WITH ORDINALITY AS u (t, n) ORDER BY n",
                [.textArray(Self.texts)])
            let integers = try connection.executePrepared(
                "i", "SELECT i::text FROM unnest($1::bigint[]) WITH ORDINALITY AS u (i, n) ORDER BY n",
                [.bigintArray(Self.integers)])
            let empty = try connection.executePrepared(
                "e", "SELECT cardinality($1::text[]), cardinality($2::bigint[]), $3::int", [
                    .textArray([String]()), .bigintArray([Int64]()), .text("7"),
                ])
            return (
                (0..<texts.rowCount).map { texts.text($0, 0) },
                (0..<integers.rowCount).map { integers.text($0, 0) },
                [empty.text(0, 0), empty.text(0, 1), empty.text(0, 2)]
            )
        }
        #expect(texts == Self.texts)
        #expect(integers == Self.integers.map(String.init))
        #expect(empty == ["0", "0", "7"])
    }
}
