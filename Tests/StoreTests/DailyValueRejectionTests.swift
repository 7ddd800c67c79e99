import DailyValueContract
import Testing

@Suite struct DailyValueRejectionTests {
    static let big = String(repeating: "x", count: 65_536)

    static let cases: [RejectCase] = [
        // MARK: Message and JSON syntax
        RejectCase("payload over 64 KiB", ["pad": "\"\(big)\""], .payloadTooLarge, ""),
        RejectCase("empty", raw: "", .invalidJSON),
        RejectCase("whitespace only", raw: " \n", .invalidJSON),
        RejectCase("array", raw: "[1]", .invalidJSON),
        RejectCase("unterminated object", raw: #"{"schema":1"#, .invalidJSON),
        RejectCase("trailing garbage", raw: String(decoding: Fixtures.event(), as: UTF8.self) + "x", .invalidJSON),
        RejectCase(
            "two objects", raw: String(decoding: Fixtures.event() + Fixtures.event(), as: UTF8.self), .invalidJSON),
        RejectCase("NaN", ["value": "NaN"], .invalidJSON, ""),
        RejectCase("Infinity", ["value": "Infinity"], .invalidJSON, ""),
        RejectCase("negative Infinity", ["value": "-Infinity"], .invalidJSON, ""),
        RejectCase("leading zero", ["value": "071"], .invalidJSON, ""),
        RejectCase("plus sign", ["value": "+71"], .invalidJSON, ""),
        RejectCase("bare decimal point", ["value": "71."], .invalidJSON, ""),
        RejectCase("single quotes", ["patient": "'p'"], .invalidJSON, ""),
        RejectCase("trailing comma", raw: #"{"schema":1,}"#, .invalidJSON),
        RejectCase("bad escape", ["patient": #""p\x""#], .invalidJSON, ""),
        RejectCase("lone surrogate escape", ["source": #"{"name":"\ud800"}"#], .invalidJSON, ""),
        RejectCase("raw control character", ["patient": "\"p\u{01}\""], .invalidJSON, ""),
        RejectCase("invalid UTF-8", Array(#"{"patient":""#.utf8) + [0xC3, 0x28] + Array("\"}".utf8), .invalidJSON, ""),
        RejectCase("overlong UTF-8", Array(#"{"x":""#.utf8) + [0xC0, 0xAF] + Array("\"}".utf8), .invalidJSON, ""),
        RejectCase(
            "UTF-8 surrogate", Array(#"{"x":""#.utf8) + [0xED, 0xA0, 0x80] + Array("\"}".utf8), .invalidJSON, ""),
        RejectCase("byte order mark", [0xEF, 0xBB, 0xBF] + Fixtures.event(), .invalidJSON, ""),
        RejectCase(
            "deep nesting", ["x": String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)],
            .invalidJSON, ""),
        // MARK: Duplicates
        RejectCase("duplicate value", raw: #"{"value":1,"value":2}"#, .duplicateField, "value"),
        RejectCase("duplicate via escape", raw: #"{"value":1,"valu\u0065":2}"#, .duplicateField, "value"),
        RejectCase("duplicate unknown member", raw: #"{"x":1,"x":2}"#, .duplicateField, ""),
        RejectCase("duplicate source member", ["source": #"{"name":"a","name":"b"}"#], .duplicateField, "source.name"),
        // MARK: Schema
        RejectCase("schema missing", ["schema": nil], .missingField, "schema"),
        RejectCase("schema 2", ["schema": "2"], .schemaVersionUnsupported, "schema"),
        RejectCase("schema 1.5", ["schema": "1.5"], .schemaVersionUnsupported, "schema"),
        RejectCase("schema string", ["schema": #""1""#], .invalidFieldType, "schema"),
        RejectCase(
            "schema first even if later", raw: #"{"patient":"","schema":3}"#, .schemaVersionUnsupported, "schema"),
        // MARK: Identity
        RejectCase("patient missing", ["patient": nil], .missingField, "patient"),
        RejectCase("patient null", ["patient": "null"], .missingField, "patient"),
        RejectCase("patient number", ["patient": "123"], .invalidFieldType, "patient"),
        RejectCase("patient empty", ["patient": #""""#], .invalidPatient, "patient"),
        RejectCase(
            "patient 65 chars", ["patient": "\"\(String(repeating: "a", count: 65))\""], .invalidPatient, "patient"),
        RejectCase("patient with slash", ["patient": #""p/1""#], .invalidPatient, "patient"),
        RejectCase("patient with space", ["patient": #""p 1""#], .invalidPatient, "patient"),
        RejectCase("patient non-ASCII", ["patient": #""p\u00e9""#], .invalidPatient, "patient"),
        RejectCase("patient dot", ["patient": #"".""#], .invalidPatient, "patient"),
        RejectCase("patient dot dot", ["patient": #""..""#], .invalidPatient, "patient"),
        RejectCase("patient dashes only", ["patient": #""---""#], .invalidPatient, "patient"),
        RejectCase("patient punctuation only", ["patient": #""._-""#], .invalidPatient, "patient"),
        RejectCase("patient underscore (not a FHIR id)", ["patient": #""p_1""#], .invalidPatient, "patient"),
        RejectCase("metric missing", ["metric": nil], .missingField, "metric"),
        RejectCase("metric unknown", ["metric": #""heart""#], .unknownMetric, "metric"),
        RejectCase("metric wrong case", ["metric": #""Heart_Rate""#], .unknownMetric, "metric"),
        RejectCase("metric number", ["metric": "1"], .invalidFieldType, "metric"),
        RejectCase("day missing", ["day": nil], .missingField, "day"),
        RejectCase("day 30 February", ["day": #""2026-02-30""#], .invalidDay, "day"),
        RejectCase("day 29 February non-leap", ["day": #""2025-02-29""#], .invalidDay, "day"),
        RejectCase("day month 13", ["day": #""2026-13-01""#], .invalidDay, "day"),
        RejectCase("day unpadded", ["day": #""2026-1-01""#], .invalidDay, "day"),
        RejectCase("day with time", ["day": #""2026-10-01T00:00""#], .invalidDay, "day"),
        RejectCase("day two days ahead", ["day": #""2026-11-03""#], .dayOutOfWindow, "day"),
        RejectCase("day older than ten years", ["day": #""2016-10-01""#], .dayOutOfWindow, "day"),
        // MARK: Zone
        RejectCase("no zone", ["timeZone": nil], .missingField, "timeZone"),
        RejectCase("both zones", ["utcOffset": #""+02:00""#], .conflictingFields, "utcOffset"),
        RejectCase("unknown zone", ["timeZone": #""Mars/Olympus_Mons""#], .invalidTimeZone, "timeZone"),
        RejectCase("ad-hoc GMT zone", ["timeZone": #""GMT+2""#], .invalidTimeZone, "timeZone"),
        RejectCase("path traversal zone", ["timeZone": #""../../etc/passwd""#], .invalidTimeZone, "timeZone"),
        RejectCase("Factory zone", ["timeZone": #""Factory""#], .invalidTimeZone, "timeZone"),
        RejectCase("localtime zone", ["timeZone": #""localtime""#], .invalidTimeZone, "timeZone"),
        RejectCase("posixrules zone", ["timeZone": #""posixrules""#], .invalidTimeZone, "timeZone"),
        RejectCase("rule zone EST5EDT", ["timeZone": #""EST5EDT""#], .invalidTimeZone, "timeZone"),
        RejectCase("rule zone CET", ["timeZone": #""CET""#], .invalidTimeZone, "timeZone"),
        RejectCase("Etc fixed offset", ["timeZone": #""Etc/GMT-14""#], .invalidTimeZone, "timeZone"),
        RejectCase("Etc UTC", ["timeZone": #""Etc/UTC""#], .invalidTimeZone, "timeZone"),
        RejectCase("GMT zone", ["timeZone": #""GMT""#], .invalidTimeZone, "timeZone"),
        RejectCase("posix copy", ["timeZone": #""posix/Europe/Paris""#], .invalidTimeZone, "timeZone"),
        RejectCase("leap-second copy", ["timeZone": #""right/Europe/Paris""#], .invalidTimeZone, "timeZone"),
        RejectCase("single-word link", ["timeZone": #""Japan""#], .invalidTimeZone, "timeZone"),
        RejectCase("zone number", ["timeZone": "1"], .invalidFieldType, "timeZone"),
        RejectCase("offset beyond 14h", ["timeZone": nil, "utcOffset": #""+14:30""#], .invalidUTCOffset, "utcOffset"),
        RejectCase(
            "offset without colon", ["timeZone": nil, "utcOffset": #""+0200""#], .invalidUTCOffset, "utcOffset"),
        RejectCase("offset minutes 60", ["timeZone": nil, "utcOffset": #""+01:60""#], .invalidUTCOffset, "utcOffset"),
        RejectCase("offset Z", ["timeZone": nil, "utcOffset": #""Z""#], .invalidUTCOffset, "utcOffset"),
        // MARK: Values
        RejectCase("value missing", ["value": nil], .missingField, "value"),
        RejectCase("value string", ["value": #""71.4""#], .invalidFieldType, "value"),
        RejectCase("value bool", ["value": "true"], .invalidFieldType, "value"),
        RejectCase("value overflow", ["value": "1e400"], .invalidNumber, "value"),
        RejectCase("value implausible", ["value": "500", "max": nil], .valueOutOfRange, "value"),
        RejectCase("min implausible", ["min": "5"], .valueOutOfRange, "min"),
        RejectCase("max implausible", ["max": "301"], .valueOutOfRange, "max"),
        RejectCase("min above value", ["min": "80"], .minMaxInconsistent, "min"),
        RejectCase("max below value", ["max": "60"], .minMaxInconsistent, "max"),
        RejectCase(
            "min for steps", ["metric": #""steps""#, "unit": nil, "value": "10", "max": nil, "min": "1"],
            .minMaxNotAllowed, "min"),
        RejectCase(
            "negative steps", ["metric": #""steps""#, "unit": nil, "value": "-1", "min": nil, "max": nil],
            .valueOutOfRange, "value"),
        RejectCase(
            "SpO2 fraction without unit",
            [
                "metric": #""oxygen_saturation""#, "unit": nil, "value": "0.97",
                "min": nil, "max": nil,
            ], .missingUnit, "unit"),
        // Issue 12: a value whose unit cannot be known is dead-lettered, never stored in a guessed unit.
        RejectCase(
            "glucose 15.2 without unit (mmol/L?)",
            ["metric": #""blood_glucose""#, "unit": nil, "value": "15.2", "min": nil, "max": nil], .missingUnit, "unit"),
        RejectCase(
            "weight 180 without unit (lb?)",
            ["metric": #""body_mass""#, "unit": nil, "value": "180", "min": nil, "max": nil], .missingUnit, "unit"),
        RejectCase(
            "height 70 without unit (in?)",
            ["metric": #""body_height""#, "unit": nil, "value": "70", "min": nil, "max": nil], .missingUnit, "unit"),
        RejectCase(
            "sleep 7.5 without unit (h?)",
            ["metric": #""sleep_duration""#, "unit": nil, "value": "7.5", "min": nil, "max": nil], .missingUnit,
            "unit"),
        RejectCase(
            "HRV 0.045 without unit (s?)",
            ["metric": #""heart_rate_variability_sdnn""#, "unit": nil, "value": "0.045", "min": nil, "max": nil],
            .missingUnit, "unit"),
        RejectCase(
            "exercise 1.5 without unit (h?)",
            ["metric": #""exercise_time""#, "unit": nil, "value": "1.5", "min": nil, "max": nil], .missingUnit, "unit"),
        RejectCase(
            "glucose below 20 mg/dL",
            ["metric": #""blood_glucose""#, "unit": #""mg/dL""#, "value": "15.2", "min": nil, "max": nil],
            .valueOutOfRange, "value"),
        RejectCase(
            "glucose 1.0 mmol/L is 18 mg/dL, below 20",
            ["metric": #""blood_glucose""#, "unit": #""mmol/L""#, "value": "1.0", "min": nil, "max": nil],
            .valueOutOfRange, "value"),
        RejectCase(
            "blood pressure with a top-level value",
            [
                "metric": #""blood_pressure""#, "unit": #""mm[Hg]""#, "value": "120", "min": nil, "max": nil,
                "systolic": #"{"value":121}"#, "diastolic": #"{"value":79}"#,
            ], .conflictingFields, "value"),
        RejectCase(
            "blood pressure without diastolic",
            [
                "metric": #""blood_pressure""#, "unit": #""mm[Hg]""#, "value": nil, "min": nil, "max": nil,
                "systolic": #"{"value":121}"#,
            ], .missingField, "diastolic"),
        RejectCase(
            "blood pressure without unit",
            [
                "metric": #""blood_pressure""#, "unit": nil, "value": nil, "min": nil, "max": nil,
                "systolic": #"{"value":121}"#, "diastolic": #"{"value":79}"#,
            ], .missingUnit, "unit"),
        RejectCase(
            "systolic not above diastolic",
            [
                "metric": #""blood_pressure""#, "unit": #""mm[Hg]""#, "value": nil, "min": nil, "max": nil,
                "systolic": #"{"value":80}"#, "diastolic": #"{"value":80}"#,
            ], .panelInconsistent, "systolic.value"),
        RejectCase(
            "systolic min above its value",
            [
                "metric": #""blood_pressure""#, "unit": #""mm[Hg]""#, "value": nil, "min": nil, "max": nil,
                "systolic": #"{"value":121,"min":130}"#, "diastolic": #"{"value":79}"#,
            ], .minMaxInconsistent, "systolic.min"),
        RejectCase(
            "diastolic implausible",
            [
                "metric": #""blood_pressure""#, "unit": #""mm[Hg]""#, "value": nil, "min": nil, "max": nil,
                "systolic": #"{"value":121}"#, "diastolic": #"{"value":5}"#,
            ], .valueOutOfRange, "diastolic.value"),
        RejectCase(
            "systolic value a string",
            [
                "metric": #""blood_pressure""#, "unit": #""mm[Hg]""#, "value": nil, "min": nil, "max": nil,
                "systolic": #"{"value":"121"}"#, "diastolic": #"{"value":79}"#,
            ], .invalidFieldType, "systolic.value"),
        RejectCase("systolic on heart rate", ["systolic": #"{"value":121}"#], .conflictingFields, "systolic"),
        RejectCase("unit beats (not bpm)", ["unit": #""beats""#], .invalidUnit, "unit"),
        RejectCase("unit of another metric", ["unit": #""kg""#], .invalidUnit, "unit"),
        RejectCase(
            "kelvin not an alias",
            [
                "metric": #""body_temperature""#, "unit": #""K""#, "value": "310",
                "min": nil, "max": nil,
            ], .invalidUnit, "unit"),
        RejectCase("unit number", ["unit": "1"], .invalidFieldType, "unit"),
        // MARK: Version and source
        RejectCase("version negative", ["version": "-1"], .invalidVersion, "version"),
        RejectCase("version fraction", ["version": "1.5"], .invalidVersion, "version"),
        RejectCase("version exponent", ["version": "1e3"], .invalidVersion, "version"),
        RejectCase("version beyond Int64", ["version": "9223372036854775808"], .invalidVersion, "version"),
        RejectCase("version string", ["version": #""1""#], .invalidFieldType, "version"),
        RejectCase("source string", ["source": #""watch""#], .invalidFieldType, "source"),
        RejectCase("source.name number", ["source": #"{"name":1}"#], .invalidFieldType, "source.name"),
        RejectCase("source.name empty", ["source": #"{"name":""}"#], .invalidSource, "source.name"),
        RejectCase("source.model control char", ["source": #"{"model":"a\nb"}"#], .invalidSource, "source.model"),
        RejectCase("source.name DEL", ["source": #"{"name":"a\u007fb"}"#], .invalidSource, "source.name"),
        RejectCase("source.name C1 control", ["source": #"{"name":"a\u0085b"}"#], .invalidSource, "source.name"),
        RejectCase("source.softwareVersion C1 control, raw", ["source": "{\"softwareVersion\":\"1\u{9F}\"}"],
            .invalidSource, "source.softwareVersion"),
        RejectCase(
            "source.bundleId too long", ["source": "{\"bundleId\":\"\(String(repeating: "b", count: 257))\"}"],
            .invalidSource, "source.bundleId"),
    ]

    @Test(arguments: cases)
    func rejects(_ rejection: RejectCase) {
        do {
            let value = try Fixtures.decoder.decode(rejection.bytes, recordTimestampMs: rejection.recordTimestampMs)
            Issue.record("accepted: \(value)")
        } catch {
            #expect(error.kind == rejection.kind, "\(error)")
            #expect(error.field == rejection.field, "\(error)")
            #expect(error.className == rejection.kind.rawValue)
            // Log-safe: no patient id and no value in the message.
            #expect(!error.description.contains("p-000123"))
            #expect(!error.description.contains("71.4"))
        }
    }

    /// Refused ids are never echoed: the rule names the field and the rule only.
    @Test(arguments: ["---", "._-", "..", "p_1", "a__b", "x/y"])
    func refusedPatientIdsAreNotEchoed(_ id: String) {
        #expect {
            try Fixtures.decoder.decode(Fixtures.event(["patient": "\"\(id)\""]), recordTimestampMs: nil)
        } throws: { error in
            guard let error = error as? DailyValueError else { return false }
            return error.kind == .invalidPatient && error.field == "patient" && !error.description.contains(id)
        }
    }

    @Test("Source texts next to the control ranges are kept: no-break space (C2 A0), é, Ā (C4 80), emoji")
    func sourceTextsBesideTheControlRangesAreKept() throws {
        for name in ["a\u{A0}b", "Caf\u{E9}", "\u{100}x", "Watch \u{1F600}"] {
            let value = try Fixtures.decoder.decode(
                Fixtures.event(["source": "{\"name\":\"\(name)\"}"]), recordTimestampMs: nil)
            #expect(value.source?.name == name)
        }
    }

    @Test func versionIsRequiredWithoutARecordTimestamp() {
        #expect(
            throws: DailyValueError(.invalidVersion, field: "version", "absent, and the record has no usable timestamp")
        ) {
            try Fixtures.decoder.decode(Fixtures.event(["version": nil]), recordTimestampMs: nil)
        }
        #expect(throws: DailyValueError.self) {
            try Fixtures.decoder.decode(Fixtures.event(["version": nil]), recordTimestampMs: -1)
        }
    }

    @Test func classNamesAreDistinct() {
        let names = DailyValueError.Kind.allCases.map(\.rawValue)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.first!.isUppercase && $0.allSatisfy(\.isLetter) })
    }
}
