/// A value kept behind one reference, copied only when written while shared: a struct with several strings and
/// arrays that is copied often (a consumed Kafka record, a mapped Observation) costs one retain per copy instead of
/// one per field.
///
/// `@unchecked Sendable`: the storage is only mutated through ``modify(_:)`` on a uniquely referenced box, i.e.
/// while no other copy (on any thread) refers to it.
package struct CopyOnWriteBox<Value: Hashable & Sendable>: Hashable, @unchecked Sendable {
    private final class Storage {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private var storage: Storage

    package init(_ value: Value) { storage = Storage(value) }

    /// The value (a read shares the storage; no copy).
    package var value: Value { storage.value }

    /// Mutates the value in place, after copying the storage if another box shares it.
    package mutating func modify<R>(_ body: (inout Value) -> R) -> R {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.value) }
        return body(&storage.value)
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.value == rhs.storage.value
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(storage.value) }

    /// Whether two boxes share one storage (for tests of copy-free paths).
    package func sharesStorage(with other: Self) -> Bool { storage === other.storage }
}
