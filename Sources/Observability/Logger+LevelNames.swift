extension Logger.Level {
    /// Every name ``init(name:)`` accepts (in any case): the four levels, then `trace` (= debug) and `warn`
    /// (= warning). The `--log-level` options declare these as their choices.
    public static let names = ["debug", "info", "warning", "error", "trace", "warn"]
}
