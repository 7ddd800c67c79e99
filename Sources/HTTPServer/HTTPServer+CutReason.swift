extension HTTPServer {
    /// Why the server cut a connection off before its request was done.
    public enum CutReason: String, Sendable, Hashable, CaseIterable {
        /// The request head was not whole within ``Limits/headTimeout``.
        case slowHead = "slow-head"
        /// The body arrived slower than ``Limits/minimumBodyRate``.
        case slowBody = "slow-body"
        /// The connection outlived ``Limits/connectionDeadline``.
        case deadline
    }
}
