import DocumentCompression

/// A stored document that does not read back is corrupt data, not an infrastructure failure: `query`, not retried.
extension DocumentError: StoreErrorConvertible {
    package var storeError: StoreError { StoreError(.query, description) }
}
