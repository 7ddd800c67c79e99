extension HTTPServer {
    /// Header fields in order, with case-insensitive lookup by name. Repeated fields stay separate entries
    /// (`values(for:)` returns them all), as they arrived or as they will be sent.
    public struct Headers: Sendable, Sequence, ExpressibleByDictionaryLiteral {
        /// The fields in order, names as given.
        public private(set) var fields: [(name: String, value: String)]

        /// Headers from `fields`, in that order.
        public init(_ fields: [(name: String, value: String)] = []) {
            self.fields = fields
        }

        /// Headers from a literal such as `["Retry-After": "5"]`, in its order (a name may repeat).
        public init(dictionaryLiteral elements: (String, String)...) {
            fields = elements.map { (name: $0.0, value: $0.1) }
        }

        /// The value of the first field named `name` (case-insensitive), if any.
        public subscript(name: String) -> String? {
            fields.first { Self.same($0.name, name) }?.value
        }

        /// Every value of the fields named `name` (case-insensitive), in order.
        public func values(for name: String) -> [String] {
            fields.filter { Self.same($0.name, name) }.map(\.value)
        }

        /// Whether a field named `name` (case-insensitive) is present.
        public func contains(_ name: String) -> Bool {
            fields.contains { Self.same($0.name, name) }
        }

        /// Appends a field; an existing one of the same name stays.
        public mutating func add(name: String, value: String) {
            fields.append((name: name, value: value))
        }

        /// Removes every field named `name` (case-insensitive).
        public mutating func remove(name: String) {
            fields.removeAll { Self.same($0.name, name) }
        }

        public var count: Int { fields.count }
        public var isEmpty: Bool { fields.isEmpty }

        public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
            fields.makeIterator()
        }

        /// ASCII case-insensitive equality (field names are ASCII tokens).
        static func same(_ a: String, _ b: String) -> Bool {
            a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
        }

        private static func lower(_ byte: UInt8) -> UInt8 {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
        }
    }
}
