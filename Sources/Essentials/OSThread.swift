import Glibc

/// A detached OS thread, for blocking C calls and loops that must never run on Swift's cooperative pool.
///
/// What Foundation's `Thread { … }.start()` did here, without Foundation (whose `Thread` brings ICU into every
/// binary): a pthread, detached, named for `ps -L` and debuggers (Linux keeps the first 15 bytes of the name).
/// Linux only, as the rest of the package.
package enum OSThread {
    /// Starts `body` on a new detached thread named `name`.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                // Released here, on every path: the thread owns its body from the moment it runs.
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                body.nameThread()
                body.run()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            fatalError("pthread_create failed for thread \(name): error \(status)")
        }
        pthread_detach(thread)
    }

    /// The thread's name and work, passed through pthread's `void *` argument.
    private final class Body: Sendable {
        let name: String
        let run: @Sendable () -> Void

        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }

        /// Names the calling thread: Linux reads the first 15 bytes written to its `comm` file.
        func nameThread() {
            let file = open("/proc/thread-self/comm", O_WRONLY)
            guard file >= 0 else { return }
            _ = Array(name.utf8.prefix(15)).withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
            close(file)
        }
    }
}
