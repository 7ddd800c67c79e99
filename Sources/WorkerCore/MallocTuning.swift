import CMalloc
import Essentials

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// glibc malloc settings for a long-running process whose buffers are allocated on one thread and freed on another.
///
/// glibc gives each thread that allocates under contention an arena of its own (up to 8 per core) and returns a
/// freed chunk to the arena it came from; free pages inside an arena stay resident until trimmed. The worker's
/// records are allocated by the Kafka poll thread and the decode/map tasks and freed on the store's queue, so
/// without this its resident memory grows with the events processed. Two arenas (one contends on its lock) and a
/// `malloc_trim` whenever resident memory grew by ``trimGrowthBytes`` since the last trim (free pages handed back to
/// the kernel; trimming on a timer instead re-faults the pages of reused buffers) keep it flat at any steady level;
/// bench/REPORT.md has the figures.
package enum MallocTuning {
    package static let arenas: Int32 = 2
    package static let trimGrowthBytes = 16 << 20

    /// Limits the arenas (unless the operator chose their number) and starts the trimming thread. Call first
    /// thing, before any other thread starts.
    package static func apply(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if !operatorSetArenas(environment) { _ = mallopt(M_ARENA_MAX, arenas) }
        OSThread.start(name: "dvp-malloc-trim") {
            var baseline = residentBytes() ?? 0
            while true {
                sleep(1)
                guard let resident = residentBytes(), resident > baseline + trimGrowthBytes else { continue }
                _ = malloc_trim(0)
                baseline = residentBytes() ?? resident
            }
        }
    }

    /// Whether `MALLOC_ARENA_MAX` or the `glibc.malloc.arena_max` tunable is set (glibc then applies it itself).
    package static func operatorSetArenas(_ environment: [String: String]) -> Bool {
        environment["MALLOC_ARENA_MAX"] != nil
            || (environment["GLIBC_TUNABLES"] ?? "").contains("glibc.malloc.arena_max")
    }

    /// This process's resident memory, from `/proc/self/statm`; nil if unreadable.
    package static func residentBytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = residentPages(statm: statm)
        else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The resident pages of a `statm` line (`size resident shared text lib data dt`).
    package static func residentPages(statm: String) -> Int? {
        let fields = statm.split(separator: " ")
        return fields.count > 1 ? Int(fields[1]) : nil
    }
}
