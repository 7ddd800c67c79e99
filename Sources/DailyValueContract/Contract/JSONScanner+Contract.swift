import JSON

extension DailyValueError {
    /// The contract's error for a refused JSON text: `invalidJSON`, or `duplicateField` naming the member.
    package init(_ error: JSONError) {
        switch error.kind {
        case .syntax: self.init(.invalidJSON, field: "", error.message)
        case .duplicateMember: self.init(.duplicateField, field: error.member, error.message)
        }
    }
}

/// The scanner's steps as the decoder takes them: each throws the contract's ``DailyValueError``.
extension JSONScanner {
    /// Consumes `byte` after optional whitespace (``expect(_:_:)``).
    mutating func consume(_ byte: UInt8, _ what: String) throws(DailyValueError) {
        do { try expect(byte, what) } catch { throw DailyValueError(error) }
    }

    /// A string token (``scanString()``).
    mutating func readString() throws(DailyValueError) -> StringToken {
        do { return try scanString() } catch { throw DailyValueError(error) }
    }

    /// A number token (``scanNumber()``).
    mutating func readNumber() throws(DailyValueError) -> NumberToken {
        do { return try scanNumber() } catch { throw DailyValueError(error) }
    }

    /// Skips one value (``skipValue(depth:maxDepth:)``).
    mutating func skip(depth: Int, maxDepth: Int) throws(DailyValueError) {
        do { try skipValue(depth: depth, maxDepth: maxDepth) } catch { throw DailyValueError(error) }
    }

    /// An `invalidJSON` error at the scanner's position.
    func violation(_ rule: String) -> DailyValueError { DailyValueError(error(rule)) }
}
