/// Polls `condition` every `interval` until it holds or `timeout` passes; returns whether it held (the last check
/// runs at the deadline).
public func eventually(
    timeout: Duration = .seconds(30), interval: Duration = .milliseconds(200), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
