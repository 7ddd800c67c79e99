import SQLiteClient
import StoreCore

/// `busy` / `locked` are `busy` (retriable), a file that cannot be opened, read or written is `connection`; the
/// native code is the extended result code.
extension SQLiteError: StoreErrorConvertible {
    package var storeError: StoreError {
        let code: StoreError.Code =
            switch kind {
            case .busy: .busy
            case .unavailable: .connection
            case .statement: .query
            }
        return StoreError(code, nativeCode: String(resultCode), message)
    }
}
