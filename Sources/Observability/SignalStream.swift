import Dispatch

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM / SIGINT as an `AsyncStream`, from `DispatchSource.makeSignalSource` (the swift-service-lifecycle shape).
public enum SignalStream {
    /// Ignores the default action of `signals` and yields each delivery. Returns once every signal is caught (see
    /// ``untilCaught(_:)``): from then on none is lost.
    public static func make(_ signals: [Int32] = [SIGTERM, SIGINT]) async -> AsyncStream<Int32> {
        let stream = AsyncStream { continuation in
            let queue = DispatchQueue(label: "dvp.signals")
            var sources: [any DispatchSourceSignal] = []
            for sig in signals {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                source.setEventHandler { continuation.yield(sig) }
                source.resume()
                sources.append(source)
            }
            let held = UncheckedSources(sources)
            continuation.onTermination = { _ in held.sources.forEach { $0.cancel() } }
        }
        await untilCaught(signals)
        return stream
    }

    /// Keeps the signal sources alive for as long as the stream lives.
    private final class UncheckedSources: @unchecked Sendable {
        let sources: [any DispatchSourceSignal]
        init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
    }

    /// A short name for logs, e.g. `SIGTERM`.
    public static func name(_ sig: Int32) -> String {
        switch sig {
        case SIGTERM: return "SIGTERM"
        case SIGINT: return "SIGINT"
        default: return "signal \(sig)"
        }
    }
}
