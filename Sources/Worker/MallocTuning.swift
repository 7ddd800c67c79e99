import CMalloc
import Foundation

/// glibc malloc settings for a long-running worker whose buffers are allocated on one thread and freed on another.
///
/// glibc gives each thread that allocates under contention an arena of its own (up to 8 per core) and returns a
/// freed chunk to the arena it came from; free pages inside an arena stay resident until trimmed. The worker's
/// records are allocated by the Kafka poll thread and the decode/map tasks and freed on the store's queue, so
/// resident memory grew with the events processed (peak RSS 188 MB at 1 M events). Two arenas (one costs ~10 % CPU
/// in lock contention) and a trim whenever resident memory passed ``trimAboveBytes`` (free pages handed back to
/// the kernel; checked once a second, so the pages of reused buffers are not faulted in again after every batch)
/// keep it well under 150 MB; see bench/REPORT.md. An operator's `MALLOC_ARENA_MAX` wins.
enum MallocTuning {
    static let arenas: Int32 = 2
    static let trimAboveBytes = 112 << 20

    /// Call first thing, before any other thread starts.
    static func apply() {
        if ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil { _ = mallopt(M_ARENA_MAX, arenas) }
        Thread.detachNewThread {
            let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
            while true {
                sleep(1)
                if let pages = residentPages(), pages * pageSize > trimAboveBytes { _ = malloc_trim(0) }
            }
        }
    }

    /// The process's resident pages (the second field of `/proc/self/statm`), nil if unreadable.
    private static func residentPages() -> Int? {
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1 else { return nil }
        return Int(String(decoding: fields[1], as: UTF8.self))
    }
}
