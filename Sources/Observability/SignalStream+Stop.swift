import Dispatch

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

extension SignalStream {
    /// The services' one stop protocol: the first signal logs `message` (with the signal and the drain timeout),
    /// calls `requestStop` and starts the one drain deadline; a second signal, or the deadline, exits the process at
    /// once with status 3 and a log line saying why. Returns when `signals` ends.
    public static func stopOnSignals(
        _ signals: AsyncStream<Int32>, drainTimeoutSeconds: Double, logger: Logger, message: String,
        requestStop: @Sendable () -> Void
    ) async {
        var received = 0
        for await sig in signals {
            received += 1
            guard received == 1 else {
                logger.error("second signal: exiting at once", [("signal", .string(name(sig))), ("exit_status", 3)])
                exit(3)
            }
            logger.info(message, [("signal", .string(name(sig))), ("drain_timeout_s", .double(drainTimeoutSeconds))])
            requestStop()
            // Every stop step has its share of the deadline; whatever still hangs then, the process ends.
            DispatchQueue.global().asyncAfter(deadline: .now() + drainTimeoutSeconds) {
                logger.error("drain deadline exceeded; exiting without a clean close", [("exit_status", 3)])
                exit(3)
            }
        }
    }
}
