import CPostgres
import Essentials

/// One libpq result (`PGresult*`), cleared in `deinit`. Values are read in text format.
package final class PostgresResult {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    var status: ExecStatusType { PQresultStatus(handle) }

    package var rowCount: Int { Int(PQntuples(handle)) }

    /// The SQLSTATE of a failed statement (`PG_DIAG_SQLSTATE`), if the server sent one.
    package var sqlState: String? {
        PQresultErrorField(handle, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
    }

    /// The server's primary error message (`PG_DIAG_MESSAGE_PRIMARY`) without its DETAIL, CONTEXT or WHERE lines,
    /// which can quote a row's values ("Failing row contains (…)", "Key (patient, …)=(…)"): those never reach a
    /// log line. libpq's whole message only when the server sent no primary field.
    package var errorMessage: String {
        if let primary = PQresultErrorField(handle, Int32(UInt8(ascii: "M"))) { return String(cString: primary) }
        return String(cString: PQresultErrorMessage(handle))
    }

    package func text(_ row: Int, _ column: Int) -> String {
        String(cString: PQgetvalue(handle, Int32(row), Int32(column)))
    }

    /// Whether the value at `row`, `column` is exactly `text`'s UTF-8 bytes, compared in place (no string is
    /// built). NULL reads as the empty text.
    package func value(_ row: Int, _ column: Int, equals text: String) -> Bool {
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        guard text.utf8.count == length else { return false }
        guard let value = PQgetvalue(handle, Int32(row), Int32(column)) else { return length == 0 }
        let bytes = UnsafeRawBufferPointer(start: value, count: length)
        return text.withUTF8Bytes { $0.elementsEqual(bytes) }
    }

    /// The value at `row`, `column` as bytes (its text format), nil for NULL.
    package func bytes(_ row: Int, _ column: Int) -> [UInt8]? {
        let (row, column) = (Int32(row), Int32(column))
        guard PQgetisnull(handle, row, column) == 0, let value = PQgetvalue(handle, row, column) else { return nil }
        let length = Int(PQgetlength(handle, row, column))
        return Array(UnsafeRawBufferPointer(start: value, count: length))
    }

    /// The value at `row`, `column` as an integer.
    /// - Throws: ``PostgresError`` `query` when the value is not a decimal integer (never a silent 0).
    package func integer(_ row: Int, _ column: Int) throws(PostgresError) -> Int64 {
        let value = text(row, column)
        guard let integer = Int64(value) else {
            throw PostgresError(.query, "row \(row), column \(column): expected an integer, got '\(value.prefix(40))'")
        }
        return integer
    }

    /// Every row mapped by `body(row index)`.
    package func rows<Row>(_ body: (Int) throws -> Row) rethrows -> [Row] { try (0..<rowCount).map(body) }
}
