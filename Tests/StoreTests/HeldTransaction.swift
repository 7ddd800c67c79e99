import Essentials
import PostgresClient
import StoreCore
import TestSupport

/// Another session on a PostgreSQL store, in a transaction its script began (e.g. a long reader's snapshot, or a
/// retention run's locks), held with its locks until ``commit()``.
final class HeldTransaction: Sendable {
    private let connection: QueueConfined<PostgresConnection>

    /// Connects to the store at `location` and runs `script`, which begins the transaction (`BEGIN …; …`).
    init(_ location: StoreLocation, _ script: String) async throws {
        guard case .postgres(let url) = location else { throw TestSetupError("a held transaction needs PostgreSQL") }
        connection = QueueConfined(label: "test.held-transaction", try PostgresConnection(connectionString: url))
        try await connection.run { _ = try $0.executeScript(script) }
    }

    func commit() async throws {
        try await connection.run { _ = try $0.execute("COMMIT") }
    }
}
