/// JSON's `null` inside an `Any` tree (``JSONValue/anyValue``), where Foundation's `JSONSerialization` put `NSNull`.
package struct JSONNull: Sendable, Hashable {
    package init() {}
}
