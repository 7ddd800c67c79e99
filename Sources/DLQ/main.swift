import DLQCommands
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

// dlq: look at dead letters (`stats`) and send them back after a fix (`redrive`, `--dry-run`).
// Exit status: 0 done, 1 some records quarantined (or would be), 2 bad arguments, 3 Kafka failure (run again:
// progress is committed per batch).
let status = await DLQ.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
