import Essentials
import Foundation
import PostgresClient
import PostgresStore
import SQLiteClient
import SQLiteStore
import StoreCore
import Testing

@Suite struct StoreErrorMappingTests {
    @Test(arguments: [
        ("08006", StoreError.Code.connection), ("08001", .connection), ("57P01", .connection), ("57P03", .connection),
        ("40001", .busy), ("40P01", .busy), ("55P03", .busy), ("57014", .busy), ("23505", .query), ("42P01", .query),
        ("25006", .connection), ("53100", .busy), ("53300", .busy), ("58030", .busy), ("42501", .query),
    ])
    func postgresSQLStateClasses(sqlState: String, code: StoreError.Code) {
        #expect(PostgresError(PostgresError.code(sqlState: sqlState), sqlState: sqlState, "").storeError.code == code)
    }

    /// Another connection holds the write lock past the busy timeout: the batch fails as retriable `busy`.
    @Test func sqliteLockedDatabaseIsBusy() async throws {
        try await TestStores.withFreshLocation(.sqlite) { location in
            guard case .sqlite(let path) = location else { return }
            let store = try await SQLiteObservationStore(path: path, busyTimeout: .milliseconds(50))
            let holder = QueueConfined(label: "test.lock-holder", SQLiteConnection?.none)
            try await holder.run { connection in
                connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 50)
                try connection?.execute("BEGIN IMMEDIATE")
            }
            let error = await #expect(throws: StoreError.self) { try await store.upsert([record(version: 1)]) }
            #expect(error?.code == .busy && error?.isRetriable == true, "\(String(describing: error))")
            #expect(error?.nativeCode == "5")

            try await holder.run { connection in try connection?.execute("ROLLBACK") }
            #expect(try await store.upsert([record(version: 1)]) == [.inserted])
            await store.close()
        }
    }

    @Test func sqliteUnopenablePathIsAConnectionError() async throws {
        let error = await #expect(throws: StoreError.self) {
            _ = try await SQLiteObservationStore(path: "/nonexistent-dir-\(UUID().uuidString)/o.db")
        }
        #expect(error?.code == .connection)
    }
}
