extension WorkerConfiguration {
    /// Consumer-group timings used when the brokers come from a devbroker's bootstrap file, unless `-X` sets them.
    ///
    /// librdkafka 2.0.2's mock cluster waits `session.timeout.ms − 1000` before electing a leader for every join
    /// after the first, and a member that vanished without leaving (librdkafka 2.0.2 sends no LeaveGroup when it is
    /// closed between a JoinGroup response and a successful SyncGroup) is only evicted after its session timeout.
    /// With the default 45 s the next worker of the group waited 72–124 s for an assignment; with 6 s, about 10 s.
    /// A real broker evicts such a member after `session.timeout.ms` too, and is not given these defaults.
    static let embeddedBrokerGroupTimings = ["session.timeout.ms": "6000", "heartbeat.interval.ms": "1000"]
}
