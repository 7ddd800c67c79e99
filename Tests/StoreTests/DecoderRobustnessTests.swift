import DailyValueContract
import Essentials
import ObservationMapping
import TestSupport
import Testing

@Suite struct DecoderRobustnessTests {
    static let seeds: [[UInt8]] = [
        Fixtures.event(),
        Fixtures.event(["timeZone": nil, "utcOffset": #""-03:30""#, "version": nil]),
        Fixtures.event(["metric": #""oxygen_saturation""#, "unit": #""1""#, "value": "0.97", "min": "0.9", "max": "1"]),
        Fixtures.event(["source": #"{"name":"Anna\u2019s \ud83d\ude00 Watch","x":[{"y":[1e5,-0.5,null]}]}"#]),
        Fixtures.event(["metric": #""steps""#, "unit": nil, "value": "8432", "min": nil, "max": nil, "extra": "{}"]),
    ]
    static let tokens: [[UInt8]] = [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "1e999", "-", "0",
        "null", "true", "NaN", "\u{FF}", "é", " ", "\"value\":", "\"schema\":1,",
    ]
    .map { Array($0.utf8) }

    /// Applies 1-4 random edits: flip, insert, delete, duplicate, truncate, splice a token.
    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            let at = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[at] = UInt8.random(in: 0...255, using: &rng)
            case 1: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: at)
            case 2 where !bytes.isEmpty:
                bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &rng)))
            case 3 where !bytes.isEmpty: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 16)], at: at)
            case 4: bytes = Array(bytes.prefix(at))
            default: bytes.insert(contentsOf: tokens.randomElement(using: &rng)!, at: at)
            }
        }
        return bytes
    }

    /// Every input ends in a value that round-trips and maps, or in a typed error; nothing traps or hangs.
    @Test(.timeLimit(.minutes(2))) func randomAndMutatedBytesNeverCrash() throws {
        var rng = SplitMix64(seed: 0xDA11_7000_0001)
        var accepted = 0
        var rejected: [DailyValueError.Kind: Int] = [:]
        for iteration in 0..<20_000 {
            let input: [UInt8]
            switch iteration % 10 {
            case 0:
                input = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            case 1: input = Array(Self.seeds[iteration % Self.seeds.count].prefix(Int.random(in: 0...300, using: &rng)))
            default: input = Self.mutate(Self.seeds.randomElement(using: &rng)!, &rng)
            }
            do {
                let value = try Fixtures.decoder.decode(input, recordTimestampMs: 1_759_384_503_000)
                accepted += 1
                let again = try Fixtures.decoder.decode(Array(value.jsonLine().utf8), recordTimestampMs: 0)
                #expect(again == value, "round trip of \(value)")
                let record = try Fixtures.mapper.map(value, recordTimestampMs: 1_759_384_503_000)
                #expect(record == (try Fixtures.mapper.map(value, recordTimestampMs: 1_759_384_503_000)))
            } catch {
                rejected[error.kind, default: 0] += 1
                #expect(!error.description.isEmpty)
            }
        }
        // The corpus exercises both outcomes and many rule classes.
        #expect(accepted > 100)
        #expect(rejected.count >= 8, "\(rejected)")
    }

    @Test(arguments: [
        "{\"x\":" + String(repeating: "[", count: 60_000) + "}",
        "{\"x\":" + String(repeating: "{\"a\":", count: 12_000) + "}",
        "{\"value\":" + String(repeating: "9", count: 60_000) + "}",
        "{\"value\":1e99999999999999999999999}",
        "{\"value\":0." + String(repeating: "0", count: 60_000) + "1}",
        "{\"x\":\"" + String(repeating: "\\u00e9", count: 10_000) + "\"}",
        String(repeating: " ", count: 65_536),
        "{\"source\":{\"name\":" + String(repeating: "[", count: 30) + "}}",
    ])
    func pathologicalInputsFailFast(_ text: String) {
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(throws: DailyValueError.self) {
                try Fixtures.decoder.decode(Array(text.utf8), recordTimestampMs: 1)
            }
        }
        // Quadratic work on these sizes takes minutes; 5 s leaves room for a loaded debug build.
        #expect(elapsed < .seconds(5))
    }
}
