import Essentials

extension PopulationGenerator {
    /// Produces the events block by block; see ``PopulationGenerator``.
    public struct Iterator: IteratorProtocol, Sendable {
        /// One event waiting to be emitted: a draft rendered when emitted (duplicates render identically).
        struct Emission: Sendable {
            var draft: EventDraft
            var kind: GeneratedEvent.Kind
            var oracle: GeneratedEvent.OracleEntry?
        }

        private let configuration: GeneratorConfiguration
        private let invalidPerValid: Double
        private var dayIndex = 0
        private var blockStart = 0
        private var sequence = 0
        private var buffer: [GeneratedEvent] = []
        private var bufferIndex = 0
        /// Re-deliveries by due day index, then by person index.
        private var pending: [Int: [Int: [Emission]]] = [:]

        init(configuration: GeneratorConfiguration) {
            self.configuration = configuration
            let share = configuration.invalidShare
            invalidPerValid = share / (1 - share)
        }

        public mutating func next() -> GeneratedEvent? {
            while bufferIndex == buffer.count {
                guard fillNextBlock() else { return nil }
            }
            defer { bufferIndex += 1 }
            return buffer[bufferIndex]
        }

        // MARK: - Blocks

        /// Generates the next block of people for the current day; `false` when everything was emitted.
        private mutating func fillNextBlock() -> Bool {
            guard dayIndex < configuration.days + PopulationGenerator.maxDelayDays else { return false }
            let block = blockStart..<Swift.min(blockStart + PopulationGenerator.blockSize, configuration.patients)
            var queues: [[Emission]] = []
            queues.reserveCapacity(block.count)
            for person in block {
                var queue = pending[dayIndex]?[person] ?? []
                if dayIndex < configuration.days {
                    queue += planDay(person: person)
                }
                queues.append(queue)
            }
            var random = PopulationGenerator.random(configuration.seed, 3, UInt64(dayIndex), UInt64(blockStart))
            buffer = interleave(queues, block: block, using: &random)
            bufferIndex = 0
            blockStart = block.upperBound
            if blockStart >= configuration.patients {
                pending[dayIndex] = nil
                blockStart = 0
                dayIndex += 1
            }
            return true
        }

        /// Merges the people's queues in a random order that keeps each person's own order, inserting invalid
        /// events, and numbers the result.
        private mutating func interleave(
            _ queues: [[Emission]], block: Range<Int>, using random: inout SplitMix64
        ) -> [GeneratedEvent] {
            var slots: [Int] = []
            for (offset, queue) in queues.enumerated() {
                slots += repeatElement(offset, count: queue.count)
            }
            for index in stride(from: slots.count - 1, to: 0, by: -1) {
                slots.swapAt(index, random.below(index + 1))
            }
            var cursors = [Int](repeating: 0, count: queues.count)
            var events: [GeneratedEvent] = []
            events.reserveCapacity(slots.count + slots.count / 8)
            for offset in slots {
                let emission = queues[offset][cursors[offset]]
                cursors[offset] += 1
                if random.chance(invalidPerValid) {
                    let invalidClass = configuration.invalidClasses[random.below(configuration.invalidClasses.count)]
                    let bytes = emission.draft.render(breaking: invalidClass, using: &random)
                    events.append(event(emission.draft.patient, bytes, .invalid, invalidClass, nil))
                }
                events.append(
                    event(emission.draft.patient, emission.draft.render(), emission.kind, nil, emission.oracle))
            }
            return events
        }

        private mutating func event(
            _ patient: String, _ bytes: [UInt8], _ kind: GeneratedEvent.Kind, _ invalidClass: InvalidEventClass?,
            _ oracle: GeneratedEvent.OracleEntry?
        ) -> GeneratedEvent {
            sequence += 1
            return GeneratedEvent(
                sequence: sequence, patient: patient, bytes: bytes, kind: kind, invalidClass: invalidClass,
                oracle: oracle
            )
        }

        // MARK: - Planning one person's day

        /// The person's events for the current day; re-deliveries for later days go to ``pending``.
        private mutating func planDay(person: Int) -> [Emission] {
            let seed = configuration.seed
            let patient = PopulationGenerator.patientID(person)
            var traits = PopulationGenerator.random(seed, 2, UInt64(person))
            let zone = ZoneProfile.pick(using: &traits)
            let source = SourceProfile.devices[traits.below(SourceProfile.devices.count)]
            let day = configuration.startDay.adding(days: dayIndex)
            var originals: [Emission] = []
            var sameDay: [Emission] = []
            for profile in configuration.metrics {
                let keyHash = PopulationGenerator.keyHash(profile.key)
                let personTraits = PopulationGenerator.random(seed, 1, UInt64(person), keyHash)
                var random = PopulationGenerator.random(seed, 4, UInt64(person), keyHash, UInt64(dayIndex))
                guard random.chance(profile.dailyProbability) else { continue }
                let drawn = profile.draw(person: personTraits, day: &random, dayIndex: dayIndex)
                let computedAt =
                    day.adding(days: 1).utcMidnightMilliseconds
                    - Int64(zone.nominalOffsetSeconds) * 1_000 + Int64(random.integer(in: 300_000...32_400_000))
                let parts = profile.parts.map { part in
                    let hash = PopulationGenerator.keyHash(profile.key + "." + part.key)
                    let traits = PopulationGenerator.random(seed, 1, UInt64(person), hash)
                    let reading = part.draw(person: traits, day: &random, dayIndex: dayIndex)
                    return EventDraft.Part(profile: part, value: reading.value, min: reading.min, max: reading.max)
                }
                let base = EventDraft(
                    patient: patient, profile: profile, day: day, zone: zone, value: drawn.value, min: drawn.min,
                    max: drawn.max, version: computedAt, source: source, parts: parts
                )
                let plan = RedeliveryPlan(base: base, configuration: configuration, using: &random)
                let oracle = GeneratedEvent.OracleEntry(identity: base.identity, highestVersion: plan.highestVersion)
                originals.append(Emission(draft: base, kind: .original, oracle: oracle))
                for (delay, emission) in plan.emissions {
                    if delay == 0 {
                        sameDay.append(emission)
                    } else {
                        pending[dayIndex + delay, default: [:]][person, default: []].append(emission)
                    }
                }
            }
            return originals + sameDay
        }
    }
}
