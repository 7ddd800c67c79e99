import StoreCtlCommands
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

// storectl: inspect and audit an observation store (SQLite or PostgreSQL).
// Exit status: 0 success, 1 failure (store error, not found, audit found decreases), 2 bad arguments.
let status = await StoreCtl.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
