import Observability

/// The gateway's log lines about requests: each names the request's tenant and its answer, never a token, a patient
/// id or a value. A refusal the client must fix (400, 403, 409, 413, 415, 422) is logged at `info`, every other
/// answer at `debug` (202s, and the 429s and 503s an overload brings in floods: their metrics count them).
struct IngestRequestLog: Sendable {
    let logger: Logger

    /// A POST's answer, for its credential's `tenant`.
    func answered(status: Int, tenant: String, seconds: Double) {
        let level: Logger.Level = Self.clientErrors.contains(status) ? .info : .debug
        guard logger.isEnabled(level) else { return }
        logger.log(
            level, status == 202 ? "request accepted" : "request refused",
            [("tenant", .string(tenant)), ("status", .int(Int64(status))), ("seconds", .double(seconds))])
    }

    /// A POST refused from its head, before any body: `tenant` when its credential was verified (nil for 401).
    func refusedFromHead(status: Int, tenant: String?) {
        let level: Logger.Level = Self.clientErrors.contains(status) && tenant != nil ? .info : .debug
        guard logger.isEnabled(level) else { return }
        logger.log(
            level, "request refused",
            [("tenant", .string(tenant ?? "(unauthenticated)")), ("status", .int(Int64(status)))])
    }

    /// The answers that say the client sent something it must change before a retry can succeed.
    private static let clientErrors: Set<Int> = [400, 403, 409, 413, 415, 422]
}
