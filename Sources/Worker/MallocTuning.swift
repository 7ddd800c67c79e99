import CMalloc
import Foundation

/// glibc malloc settings for a long-running worker whose buffers are allocated on one thread and freed on another.
///
/// glibc gives each thread that allocates under contention an arena of its own (up to 8 per core) and returns a
/// freed chunk to the arena it came from; free pages inside an arena stay resident until trimmed. The worker's
/// records are allocated by the Kafka poll thread and the decode/map tasks and freed on the store's queue, so
/// resident memory kept growing with the events processed (peak RSS 197 MB at 1 M events). Two arenas (one costs
/// ~10 % CPU in lock contention) and a trim once a second (free pages handed back to the kernel) keep it flat; see
/// bench/REPORT.md. An operator's `MALLOC_ARENA_MAX` wins.
enum MallocTuning {
    static let arenas: Int32 = 2
    static let trimIntervalSeconds: UInt32 = 1

    /// Call first thing, before any other thread starts.
    static func apply() {
        if ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil { _ = mallopt(M_ARENA_MAX, arenas) }
        Thread.detachNewThread {
            while true {
                sleep(trimIntervalSeconds)
                _ = malloc_trim(0)
            }
        }
    }
}
