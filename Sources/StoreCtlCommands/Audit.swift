import CommandLineOptions
import StoreCore

/// `audit-install` and `audit-check`: a trigger-maintained log of every stored version update.
enum Audit {
    @Sendable static func install(_ arguments: ParsedCommandLine) async throws -> Int32 {
        try arguments.expectPositionals(0, "")
        try await StoreCtl.withStore(arguments) { try await auditing($0).installVersionAudit() }
        print("version audit installed")
        return 0
    }

    @Sendable static func check(_ arguments: ParsedCommandLine) async throws -> Int32 {
        try arguments.expectPositionals(0, "")
        let summary = try await StoreCtl.withStore(arguments) { try await auditing($0).versionAudit() }
        print("decreases: \(summary.decreases)")
        print("updates: \(summary.updates)")
        return summary.decreases == 0 ? 0 : 1
    }

    private static func auditing(_ store: any ObservationStore) throws -> any VersionAuditing {
        guard let audit = store.capabilities.audit else {
            throw StoreError(.usage, "this store does not support the version audit")
        }
        return audit
    }
}
