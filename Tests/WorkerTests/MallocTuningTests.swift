import Testing
import WorkerCore

@Suite("Malloc tuning")
struct MallocTuningTests {
    @Test("The operator's arena setting wins, by variable or tunable")
    func operatorSetting() {
        #expect(!MallocTuning.operatorSetArenas([:]))
        #expect(MallocTuning.operatorSetArenas(["MALLOC_ARENA_MAX": "4"]))
        #expect(MallocTuning.operatorSetArenas(["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=4"]))
        #expect(!MallocTuning.operatorSetArenas(["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"]))
    }

    @Test("Resident memory is read from /proc/self/statm")
    func residentMemory() throws {
        #expect(MallocTuning.residentPages(statm: "9641 2113 1571 2 0 421 0\n") == 2113)
        #expect(MallocTuning.residentPages(statm: "") == nil)
        let resident = try #require(MallocTuning.residentBytes())
        #expect(resident > 1 << 20, "a test process holds more than 1 MiB")
    }
}
