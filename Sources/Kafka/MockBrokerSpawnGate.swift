#if canImport(Glibc)
    import Glibc
#endif

/// Keeps child processes from being spawned while a mock broker of this process goes down.
///
/// librdkafka 2.0.2's `rd_kafka_mock_broker_set_down` closes the broker's listening socket and binds a new one to
/// the same port at once, asserting (aborting the whole process) when that bind fails (`rdkafka_mock.c` 2092–2100).
/// A child spawned at that moment shares the listener until it execs (descriptors are copied by `posix_spawn`, and
/// close-on-exec closes them only at exec), so the listener is still listening and the bind fails with
/// `EADDRINUSE`. A process that both runs a mock cluster and spawns children wraps each spawn in ``spawning(_:)``;
/// ``KafkaMockCluster/setBrokerDown(_:)`` holds the gate exclusively. Spawns go on together; only a set-down waits.
public enum MockBrokerSpawnGate {
    private nonisolated(unsafe) static let lock: UnsafeMutablePointer<pthread_rwlock_t> = {
        let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        // A set-down waits for the spawns under way, not for every spawn that follows.
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
        return lock
    }()

    /// Runs `spawn` (which starts a child process and returns once it has exec'd) with no mock broker going down.
    public static func spawning<T, E: Error>(_ spawn: () throws(E) -> T) throws(E) -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try spawn()
    }

    /// Runs `body` (a broker set-down) while no child process is being spawned.
    static func exclusively<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
