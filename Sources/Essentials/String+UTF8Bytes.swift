extension String {
    /// `body` over the string's UTF-8 bytes in place: a native string's storage (a small one's copied to the stack),
    /// without the retain and release of `withUTF8` on a copy; only a foreign string is copied first. Iterating
    /// `utf8` element by element is several times slower on the hot paths that use this.
    @inlinable
    package func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}
