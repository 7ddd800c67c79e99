import HTTPServer
import Synchronization

/// The requests a handler saw, from its server threads.
final class Calls: Sendable {
    private let requests = Mutex<[HTTPServer.Request]>([])

    func record(_ request: HTTPServer.Request) {
        requests.withLock { $0.append(request) }
    }

    var all: [HTTPServer.Request] { requests.withLock { $0 } }
}
