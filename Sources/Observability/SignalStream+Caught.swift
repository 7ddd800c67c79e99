#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SignalStream {
    /// Returns once each of `signals` has a handler, or after `bound`. libdispatch installs a signal source's handler
    /// on its own thread some time after `resume()`; a signal before that meets `SIG_IGN` and is lost (a SIGTERM
    /// in a process's first milliseconds, seen under load: the pod then waits for SIGKILL).
    static func untilCaught(_ signals: [Int32], bound: Duration = .seconds(2)) async {
        let deadline = ContinuousClock.now + bound
        while !signals.allSatisfy(isCaught), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Whether `sig` has a handler (neither the default action nor ignored).
    static func isCaught(_ sig: Int32) -> Bool {
        var action = sigaction()
        guard sigaction(sig, nil, &action) == 0 else { return false }
        #if canImport(Glibc)
            let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        #else
            let handler = unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
        #endif
        return handler != 0 && handler != 1  // SIG_DFL, SIG_IGN
    }
}
