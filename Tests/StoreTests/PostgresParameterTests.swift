import Essentials
import Foundation
import PostgresClient
import TestSupport
import Testing

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

    @Test("UTF-8 slices of one buffer (at offsets, empty, non-ASCII) bind like the strings they hold")
    func utf8SlicesRoundTrip() async throws {
        let url = try await TestStores.postgresURL()
        let buffer = Array(Self.texts.joined().utf8)
        var slices: [ArraySlice<UInt8>] = []
        var start = 0
        for text in Self.texts {
            slices.append(buffer[start..<start + text.utf8.count])
            start += text.utf8.count
        }
        let box = QueueConfined(label: "test.binary-slices", ())
        let bound = slices
        let (texts, empty) = try await box.run { _ in
            let connection = try PostgresConnection(connectionString: url, options: PostgresClientOptions())
            let texts = try connection.executePrepared(
                "s", "SELECT t FROM unnest($1::text[]) WITH ORDINALITY AS u (t, n) ORDER BY n", [.textArray(utf8: bound)])
            let empty = try connection.executePrepared("e", "SELECT cardinality($1::text[])", [.textArray(utf8: [])])
            return ((0..<texts.rowCount).map { texts.text($0, 0) }, empty.text(0, 0))
        }
        #expect(texts == Self.texts)
        #expect(empty == "0")
    }
}

extension PostgresParameterTests {
    /// A constraint violation's DETAIL quotes the row ("Failing row contains (…)"): the error keeps the SQLSTATE and
    /// the primary message only, so no stored value or patient id reaches a log line.
    @Test func serverErrorsLeaveOutTheRowsValues() async throws {
        let url = try await TestStores.postgresURL()
        let box = QueueConfined(label: "test.error-detail", ())
        let error = try await box.run { _ -> PostgresError? in
            let connection = try PostgresConnection(connectionString: url, options: PostgresClientOptions())
            _ = try connection.executePrepared(
                "c", "CREATE TEMP TABLE detail_probe (patient text CHECK (patient <> 'p-MARKER-42'))", [])
            do {
                _ = try connection.executePrepared("i", "INSERT INTO detail_probe VALUES ($1)", [.text("p-MARKER-42")])
                return nil
            } catch let error as PostgresError { return error }
        }
        let failed = try #require(error)
        #expect(failed.sqlState == "23514")
        #expect(failed.message.contains("violates check constraint"))
        #expect(!failed.message.contains("MARKER"), "\(failed.message)")
    }
}
