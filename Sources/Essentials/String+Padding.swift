extension String {
    /// The text cut or filled with spaces on the right to exactly `width` characters (a table column) — Foundation's
    /// `padding(toLength:withPad: " ", startingAt: 0)`, without Foundation.
    package func padded(to width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}
