import CommandLineOptions
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `finalize`: flips preliminary days past their local end plus a settle window to final (docs/LIFECYCLE.md).
enum Finalize {
    static let settleOption = CommandLineOption.value(
        "--settle-hours", "H", environment: "DVP_SETTLE_HOURS",
        help: "how long after the end of the local day a preliminary day may still change (default 36, 0-720)")

    @Sendable static func run(_ arguments: ParsedCommandLine) async throws -> Int32 {
        try arguments.expectPositionals(0, "")
        let settleHours = try arguments.integer("--settle-hours", in: 0...720) ?? 36
        if case .fhir = try arguments.storeLocation() {
            throw StoreError(.usage, "the FHIR server store does not support finalize yet (docs/LIFECYCLE.md)")
        }
        let cutoff = Int64(Date().timeIntervalSince1970) - Int64(settleHours) * 3_600
        let finalized = try await StoreCtl.withStore(arguments) { store in
            guard let finalizing = store.capabilities.finalize else {
                throw StoreError(.usage, "this store does not support finalize")
            }
            return try await finalizing.finalize(settledBefore: cutoff)
        }
        print("finalized: \(finalized)")
        return 0
    }
}
