import Foundation

/// A stream with statuses, written by the test (`producer generate` sends none): ended days first sent
/// `preliminary`, re-sent with higher versions a little later in the same phase (while the first is still
/// preliminary: the race with finalize) or in a later phase (some final, some still preliminary, some with another
/// value, a lower version after a higher one, an exact duplicate), and days that end only after tomorrow, only ever
/// preliminary. The test publishes one phase after the other; its oracle is `expected`.
struct LifecycleStream {
    struct Event {
        var patient: String
        var day: String
        var value: Int
        var version: Int64
        var status: String

        var key: String { "\(patient)/steps/\(day)" }
        var json: String {
            #"{"schema":1,"patient":"\#(patient)","metric":"steps","day":"\#(day)","timeZone":"America/New_York","#
                + #""value":\#(value),"unit":"/d","version":\#(version),"status":"\#(status)"}"#
        }
    }

    /// What the store must hold for one day at the end, and what was sent for it.
    struct Expected {
        /// The highest version sent, its value and its status.
        var version: Int64
        var value: Int
        var status: String
        /// Every version sent, with its value.
        var sent: [Int64: Int]
        /// The version first sent, when it was sent `preliminary` (a row at that version that is final was flipped by
        /// finalize: the worker writes it preliminary).
        var firstPreliminary: Int64?
        /// True for a day whose local end is after tomorrow: finalize must leave it alone.
        var open: Bool
        var events: Int
    }

    /// One event of a day's script: phase, hours after the start of the day (its version), status, value step.
    private typealias Step = (phase: Int, hours: Int64, status: String, delta: Int)

    /// The scripts of ended days, used in turn; every day first sent in phase 0 gets a higher version later.
    private static let scripts: [[Step]] = [
        [(0, 10, "preliminary", 0), (1, 20, "final", 0)],  // confirmed with the same value
        [(0, 10, "preliminary", 0), (1, 20, "final", 1)],  // confirmed with another value
        [(0, 10, "preliminary", 0), (1, 20, "preliminary", 1), (2, 30, "preliminary", 2)],  // still open when sent
        [(0, 10, "preliminary", 0), (1, 20, "preliminary", 1), (2, 30, "final", 2), (2, 25, "preliminary", 3)],
        [(0, 10, "preliminary", 0), (2, 30, "final", 0), (2, 30, "final", 0)],  // an exact duplicate
        [(1, 10, "preliminary", 0), (2, 20, "preliminary", 1)],  // first sent in phase 1
        [(1, 10, "preliminary", 0)],  // sent once
        [(0, 10, "preliminary", 0), (1, 20, "final", 0), (2, 30, "preliminary", 0)],  // preliminary after final
        [(0, 10, "preliminary", 0), (0, 20, "final", 1)],  // corrected within the phase
        [(0, 10, "preliminary", 0), (0, 20, "preliminary", 1), (1, 30, "preliminary", 2), (1, 40, "final", 2)],
        [(1, 10, "preliminary", 0), (1, 20, "preliminary", 0), (2, 30, "final", 1)],
    ]
    /// How many days later in a phase a day's next event in that phase comes (about one published chunk).
    private static let lag = 12
    /// The script of a day that has not ended.
    private static let openScript: [Step] = [
        (0, 10, "preliminary", 0), (1, 20, "preliminary", 1), (2, 30, "preliminary", 2),
    ]

    private(set) var phases: [[Event]] = []
    /// Each phase's events with their place in it.
    private var placed: [[(place: Int, event: Event)]] = [[], [], []]
    private(set) var expected: [String: Expected] = [:]
    /// Events sent after a higher version of their day (each is `stale`), and exact duplicates (each `unchanged`).
    private(set) var outOfOrder = 0
    private(set) var duplicates = 0

    /// `patients` people, each with `endedDays` days that ended at least a day ago and one (tomorrow, UTC) that ends
    /// after tomorrow.
    init(patients: Int, endedDays: Int, now: Date = Date()) {
        let today = Int64(now.timeIntervalSince1970) / 86_400
        var index = 0
        for p in 1...patients {
            let patient = String(format: "p-%06d", p)
            for d in 0...endedDays {
                let open = d == endedDays
                let day = open ? today + 1 : today - 3 - Int64(d)
                add(
                    patient: patient, day: day,
                    script: open ? Self.openScript : Self.scripts[index % Self.scripts.count],
                    base: 1_000 + (index * 37) % 9_000, open: open, order: index)
                index += 1
            }
        }
        // The j-th event of a day in a phase comes `lag` days after its (j-1)-th (a stable sort keeps the order).
        phases = placed.map { events in
            events.enumerated().sorted { ($0.element.place, $0.offset) < ($1.element.place, $1.offset) }
                .map(\.element.event)
        }
    }

    var eventCount: Int { phases.reduce(0) { $0 + $1.count } }

    private mutating func add(patient: String, day: Int64, script: [Step], base: Int, open: Bool, order: Int) {
        let date = Date(timeIntervalSince1970: TimeInterval(day * 86_400))
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let dayText = formatter.string(from: date)
        let events = script.map { step in
            Event(
                patient: patient, day: dayText, value: base + 100 * step.delta,
                version: (day * 86_400 + step.hours * 3_600) * 1_000, status: step.status)
        }
        var highest = events[0]
        var sent: [Int64: Int] = [:]
        for (j, (step, event)) in zip(script, events).enumerated() {
            if event.version < highest.version { outOfOrder += 1 }
            if sent[event.version] != nil { duplicates += 1 }
            if event.version > highest.version { highest = event }
            sent[event.version] = event.value
            let earlier = script[..<j].filter { $0.phase == step.phase }.count
            placed[step.phase].append((order + earlier * Self.lag, event))
        }
        expected[highest.key] = Expected(
            version: highest.version, value: highest.value, status: highest.status, sent: sent,
            firstPreliminary: events[0].status == "preliminary" ? events[0].version : nil, open: open,
            events: events.count)
    }

    /// Writes events as JSON lines.
    static func write(_ events: some Sequence<Event>, to url: URL) throws {
        try Data(events.map { $0.json + "\n" }.joined().utf8).write(to: url)
    }
}
