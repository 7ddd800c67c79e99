extension StringProtocol {
    /// The text without leading and trailing whitespace and line breaks (what Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` did, without `CharacterSet`, which brings ICU).
    package func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
