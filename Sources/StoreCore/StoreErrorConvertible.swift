/// A database client's error that a store reports as the ``StoreError`` of the same class.
package protocol StoreErrorConvertible: Error {
    var storeError: StoreError { get }
}

extension StoreError {
    /// Runs `body`, turning a client error it throws into the matching ``StoreError``; other errors pass unchanged.
    package static func mapping<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as any StoreErrorConvertible {
            throw error.storeError
        }
    }
}
