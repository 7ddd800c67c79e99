import CPostgres

/// One libpq result (`PGresult*`), cleared in `deinit`. Values are read in text format.
final class PostgresResult {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    var status: ExecStatusType { PQresultStatus(handle) }

    var rowCount: Int { Int(PQntuples(handle)) }

    /// The SQLSTATE of a failed statement (`PG_DIAG_SQLSTATE`), if the server sent one.
    var sqlState: String? {
        PQresultErrorField(handle, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
    }

    var errorMessage: String { String(cString: PQresultErrorMessage(handle)) }

    func text(_ row: Int, _ column: Int) -> String {
        String(cString: PQgetvalue(handle, Int32(row), Int32(column)))
    }

    func integer(_ row: Int, _ column: Int) -> Int64 { Int64(text(row, column)) ?? 0 }

    /// Every row mapped by `body(row index)`.
    func rows<Row>(_ body: (Int) -> Row) -> [Row] { (0..<rowCount).map(body) }
}
