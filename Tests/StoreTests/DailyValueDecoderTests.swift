import DailyValueContract
import Foundation
import Testing

/// One event that must be rejected, with the expected class and field.
struct RejectCase: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var kind: DailyValueError.Kind
    var field: String
    var recordTimestampMs: Int64? = 1_759_384_503_000

    init(_ name: String, _ overrides: [String: String?], _ kind: DailyValueError.Kind, _ field: String) {
        self.init(name, Fixtures.event(overrides), kind, field)
    }

    init(_ name: String, raw: String, _ kind: DailyValueError.Kind, _ field: String = "") {
        self.init(name, Array(raw.utf8), kind, field)
    }

    init(_ name: String, _ bytes: [UInt8], _ kind: DailyValueError.Kind, _ field: String) {
        self.name = name
        self.bytes = bytes
        self.kind = kind
        self.field = field
    }

    var testDescription: String { name }
}

@Suite struct DailyValueDecoderTests {
    // MARK: - Accepted

    @Test func decodesTheDesignExample() throws {
        let value = try Fixtures.decoder.decode(Fixtures.event(), recordTimestampMs: 5)
        #expect(
            value
                == DailyValue(
                    patient: "p-000123", metric: "heart_rate", day: "2026-10-01", zone: .timeZone("Europe/Bratislava"),
                    value: 71.4, min: 48, max: 162, version: 1_759_384_503_000,
                    source: .init(name: "Apple Watch", bundleId: "com.apple.health", model: "Watch7,3")))
    }

    static let accepted: [(String, [String: String?], @Sendable (DailyValue) -> Bool)] = [
        (
            "utcOffset instead of timeZone", ["timeZone": nil, "utcOffset": #""+05:45""#],
            { $0.zone == .utcOffset(seconds: 20_700) }
        ),
        (
            "negative half-hour offset", ["timeZone": nil, "utcOffset": #""-03:30""#],
            { $0.zone == .utcOffset(seconds: -12_600) }
        ),
        (
            "+14:00 is the limit", ["timeZone": nil, "utcOffset": #""+14:00""#],
            { $0.zone == .utcOffset(seconds: 50_400) }
        ),
        ("UTC zone", ["timeZone": #""UTC""#], { $0.zone == .timeZone("UTC") }),
        (
            "location zone three parts", ["timeZone": #""America/Argentina/Salta""#],
            { $0.zone == .timeZone("America/Argentina/Salta") }
        ),
        ("backward link to a location", ["timeZone": #""US/Eastern""#], { $0.zone == .timeZone("US/Eastern") }),
        ("version absent uses the record timestamp", ["version": nil], { $0.version == 1_759_384_503_000 }),
        ("version 0", ["version": "0"], { $0.version == 0 }),
        ("version Int64.max", ["version": "9223372036854775807"], { $0.version == .max }),
        ("unit absent", ["unit": nil], { $0.value == 71.4 }),
        ("unit alias count/min", ["unit": #""count/min""#], { $0.value == 71.4 }),
        ("min/max null", ["min": "null", "max": "null"], { $0.min == nil && $0.max == nil }),
        ("min/max absent", ["min": nil, "max": nil], { $0.min == nil && $0.max == nil }),
        ("source absent", ["source": nil], { $0.source == nil }),
        ("source empty", ["source": "{}"], { $0.source == nil }),
        (
            "source with unknown member", ["source": #"{"softwareVersion":"11.0","x":[1,{"y":null}]}"#],
            { $0.source == .init(softwareVersion: "11.0") }
        ),
        (
            "source with escapes", ["source": #"{"name":"Anna\u2019s Watch \ud83d\ude00"}"#],
            { $0.source?.name == "Anna\u{2019}s Watch \u{1F600}" }
        ),
        ("unknown members ignored", ["extra": #"{"a":[1,2.5e3,true,false,null,"s"]}"#, "z": "[]"], { _ in true }),
        ("exponent number", ["value": "7.14e1"], { $0.value == 71.4 }),
        (
            "day tomorrow is in the window", ["day": #""2026-11-02""#, "min": nil, "max": nil],
            { $0.day == "2026-11-02" }
        ),
        ("day ten years ago is in the window", ["day": #""2016-11-02""#], { $0.day == "2016-11-02" }),
        ("leap day", ["day": #""2024-02-29""#], { $0.day == "2024-02-29" }),
        ("patient with all allowed characters", ["patient": #""A.z-0-9""#], { $0.patient == "A.z-0-9" }),
        ("patient one digit", ["patient": #""7""#], { $0.patient == "7" }),
        ("patient dots around a letter", ["patient": #"".a.""#], { $0.patient == ".a." }),
        ("escaped patient", ["patient": #""p\u002d1""#], { $0.patient == "p-1" }),
    ]

    @Test(arguments: accepted.indices)
    func accepts(_ index: Int) throws {
        let (name, overrides, check) = Self.accepted[index]
        let value = try Fixtures.decoder.decode(Fixtures.event(overrides), recordTimestampMs: 1_759_384_503_000)
        #expect(check(value), "\(name): \(value)")
    }

    @Test(
        arguments: [
            ("oxygen_saturation", #""1""#, "0.97", "0.9", "0.99", 97.0, 90.0, 99.0),
            ("oxygen_saturation", #""1""#, "0.57", nil, nil, 57.0, nil, nil),
            ("body_mass", #""g""#, "72500", nil, nil, 72.5, nil, nil),
            // Rounded to the sent precision (issue 28): ±1 lb is ±0.45 kg, ±1 in is ±2.54 cm, ±0.1 in ±0.25 cm.
            ("body_mass", #""[lb_av]""#, "150", nil, nil, 68.0, nil, nil),
            ("body_mass", #""[lb_av]""#, "150.5", nil, nil, 68.27, nil, nil),
            ("body_height", #""[in_i]""#, "70", nil, nil, 178.0, nil, nil),
            ("body_height", #""[in_i]""#, "70.0", nil, nil, 177.8, nil, nil),
            ("body_height", #""m""#, "1.83", nil, nil, 183.0, nil, nil),
            ("distance_walking_running", #""km""#, "5.2", nil, nil, 5200.0, nil, nil),
            ("sleep_duration", #""h""#, "7.5", nil, nil, 450.0, nil, nil),
            ("heart_rate_variability_sdnn", #""s""#, "0.042", "0.02", "0.09", 42.0, 20.0, 90.0),
        ] as [(String, String, String, String?, String?, Double, Double?, Double?)])
    func convertsExactUnitAliases(
        metric: String, unit: String, value: String, min: String?, max: String?, expected: Double, eMin: Double?,
        eMax: Double?
    ) throws {
        let event = Fixtures.event([
            "metric": "\"\(metric)\"", "unit": unit, "value": value, "min": min, "max": max,
        ])
        let decoded = try Fixtures.decoder.decode(event, recordTimestampMs: nil)
        #expect(decoded.value == expected)
        #expect(decoded.min == eMin)
        #expect(decoded.max == eMax)
    }

    @Test func readsEscapedMemberNames() throws {
        var event = String(decoding: Fixtures.event(["value": nil]), as: UTF8.self)
        event.removeLast()
        event += #","val\u0075e":70}"#
        #expect(try Fixtures.decoder.decode(Array(event.utf8), recordTimestampMs: nil).value == 70)
    }

    @Test func acceptsWhitespaceAndTheBorrowedBufferVariant() throws {
        let text =
            " \n{ \"schema\" : 1 ,\t\"patient\":\"p\", \"metric\":\"steps\",\"day\":\"2026-10-01\","
            + "\"utcOffset\":\"+00:00\",\"value\":8432 }\r\n"
        let bytes = Array(text.utf8)
        let value = try bytes.withUnsafeBytes { try Fixtures.decoder.decode($0, recordTimestampMs: 7) }
        #expect(
            value
                == DailyValue(
                    patient: "p", metric: "steps", day: "2026-10-01", zone: .utcOffset(seconds: 0),
                    value: 8432, version: 7))
    }

    @Test func jsonLineRoundTrips() throws {
        let original = try Fixtures.decoder.decode(
            Fixtures.event(["source": #"{"name":"Q\"uote\\ \u00fc","softwareVersion":"11.0"}"#]), recordTimestampMs: nil
        )
        let line = original.jsonLine()
        #expect(try Fixtures.decoder.decode(Array(line.utf8), recordTimestampMs: nil) == original)
        let offset = DailyValue(
            patient: "p", metric: "steps", day: "2026-10-01", zone: .utcOffset(seconds: -12_600),
            value: 8432, version: 3)
        #expect(
            offset.jsonLine()
                == #"{"schema":1,"patient":"p","metric":"steps","day":"2026-10-01","utcOffset":"-03:30","value":8432,"unit":"/d","version":3}"#
        )
        #expect(try Fixtures.decoder.decode(Array(offset.jsonLine().utf8), recordTimestampMs: nil) == offset)
    }
}

/// Issue 12: the unit rule's accepted cases and the blood-pressure panel.
@Suite struct UnitRuleAndPanelTests {
    static func decode(_ overrides: [String: String?]) throws -> DailyValue {
        try Fixtures.decoder.decode(Fixtures.event(overrides), recordTimestampMs: nil)
    }

    @Test(arguments: [
        ("blood_glucose", "mg/dL", "105", 105.0), ("blood_glucose", "mmol/L", "5.5", 99),
        ("blood_glucose", "mmol/L", "5.55", 100), ("body_mass", "[lb_av]", "180", 81.6),
        ("body_height", "[in_i]", "70", 178),
        ("sleep_duration", "h", "7.5", 450), ("heart_rate_variability_sdnn", "s", "0.045", 45),
        ("exercise_time", "h", "1.5", 90),
    ])
    func riskyMetricsWithTheirUnitAreConverted(_ metric: String, _ unit: String, _ sent: String, _ stored: Double)
        throws
    {
        let value = try Self.decode([
            "metric": "\"\(metric)\"", "unit": "\"\(unit)\"", "value": sent, "min": nil, "max": nil,
        ])
        #expect(value.value == stored)
    }

    @Test(arguments: [
        "steps", "flights_climbed", "heart_rate", "resting_heart_rate", "walking_heart_rate_average",
        "respiratory_rate", "heart_rate_recovery_one_minute", "push_count", "swimming_stroke_count", "inhaler_usage",
    ])
    func universalUnitMetricsMayOmitTheUnit(_ metric: String) throws {
        let catalog = MetricCatalog.builtin[metric]!
        #expect(catalog.unitOptional)
        let value = try Self.decode(["metric": "\"\(metric)\"", "unit": nil, "value": "60", "min": nil, "max": nil])
        #expect(value.value == 60)
    }

    @Test func onlyTheUniversalUnitMetricsMayOmitIt() {
        let optional = Set(MetricCatalog.builtin.allMetrics.filter(\.unitOptional).map(\.key))
        #expect(
            optional == [
                "steps", "flights_climbed", "heart_rate", "resting_heart_rate", "walking_heart_rate_average",
                "respiratory_rate", "heart_rate_recovery_one_minute", "swimming_stroke_count", "push_count",
                "stand_hours", "number_of_times_fallen", "inhaler_usage", "uv_exposure",
            ])
    }

    @Test func bloodPressurePanelDecodesAndRoundTrips() throws {
        let value = try Self.decode([
            "metric": #""blood_pressure""#, "unit": #""mm[Hg]""#, "value": nil, "min": nil, "max": nil,
            "systolic": #"{"value":121,"min":110,"max":138}"#, "diastolic": #"{"value":79,"min":70,"max":88}"#,
        ])
        #expect(value.value == nil)
        #expect(
            value.components == [
                DailyValue.Component(key: "systolic", value: 121, min: 110, max: 138),
                DailyValue.Component(key: "diastolic", value: 79, min: 70, max: 88),
            ])
        let again = try Fixtures.decoder.decode(Array(value.jsonLine().utf8), recordTimestampMs: nil)
        #expect(again == value)
    }
}
