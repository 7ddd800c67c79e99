import PostgresClient
import StoreCore

/// The same class, with the SQLSTATE as the native code.
extension PostgresError: StoreErrorConvertible {
    package var storeError: StoreError {
        let storeCode: StoreError.Code =
            switch code {
            case .connection: .connection
            case .busy: .busy
            case .timeout: .timeout
            case .query: .query
            case .usage: .usage
            }
        return StoreError(storeCode, nativeCode: sqlState, message)
    }
}
