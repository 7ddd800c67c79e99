extension MetricProfile {
    /// The generator's built-in profiles, one per catalog metric, in output order: the common metrics, then the
    /// occasional ones (``occasional``), about 6 % of the events (docs/CLINICAL.md, "Generator").
    public static let builtin: [MetricProfile] = common + occasional

    /// The metrics most backends sync every day, at the shares the demo and benchmarks were measured with.
    ///
    /// Values follow typical adult ranges (steps 2k–20k a day, heart-rate means 55–95 /min, SpO2 94–99 %, sleep
    /// 300–540 min, body weight drifting slowly); bounds stay inside the catalog's plausible ranges.
    static let common: [MetricProfile] = [
        MetricProfile(
            key: "steps", unit: "/d", shape: .cumulative, baseline: 3_000...13_000, noise: 0.3,
            relativeNoise: true, bounds: 0...60_000, absurdValue: 2_500_000
        ),
        MetricProfile(
            key: "heart_rate", unit: "/min", shape: .meanWithRange, baseline: 55...95, noise: 3,
            rangeBelow: 8...25, rangeAbove: 30...90, bounds: 30...220, decimals: 1, absurdValue: 900
        ),
        MetricProfile(
            key: "resting_heart_rate", unit: "/min", shape: .single, baseline: 45...78, noise: 2,
            bounds: 30...150, absurdValue: 900
        ),
        MetricProfile(
            key: "walking_heart_rate_average", unit: "/min", shape: .single, baseline: 85...120, noise: 4,
            bounds: 40...200, decimals: 1, dailyProbability: 0.9, absurdValue: 900
        ),
        MetricProfile(
            key: "heart_rate_variability_sdnn", unit: "ms", shape: .meanWithRange, baseline: 20...90, noise: 7,
            rangeBelow: 5...15, rangeAbove: 10...60, bounds: 5...300, decimals: 1, absurdValue: 90_000
        ),
        MetricProfile(
            key: "oxygen_saturation", unit: "%", shape: .meanWithRange, baseline: 95.5...98.5, noise: 0.5,
            rangeBelow: 1...5, rangeAbove: 0.5...2, bounds: 88...100, decimals: 1, dailyProbability: 0.8,
            absurdValue: 180
        ),
        MetricProfile(
            key: "respiratory_rate", unit: "/min", shape: .meanWithRange, baseline: 12...18, noise: 1,
            rangeBelow: 1...4, rangeAbove: 2...8, bounds: 6...40, decimals: 1, dailyProbability: 0.8,
            absurdValue: 700
        ),
        MetricProfile(
            key: "distance_walking_running", unit: "m", shape: .cumulative, baseline: 1_500...11_000, noise: 0.3,
            relativeNoise: true, bounds: 0...60_000, absurdValue: 9_000_000
        ),
        MetricProfile(
            key: "active_energy_burned", unit: "kcal", shape: .cumulative, baseline: 150...900, noise: 0.25,
            relativeNoise: true, bounds: 0...4_000, absurdValue: 250_000
        ),
        MetricProfile(
            key: "basal_energy_burned", unit: "kcal", shape: .cumulative, baseline: 1_250...2_000, noise: 0.03,
            relativeNoise: true, bounds: 500...4_000, absurdValue: 250_000
        ),
        MetricProfile(
            key: "flights_climbed", unit: "{#}", shape: .cumulative, baseline: 2...20, noise: 0.5,
            relativeNoise: true, bounds: 0...150, absurdValue: 90_000
        ),
        MetricProfile(
            key: "exercise_time", unit: "min", shape: .cumulative, baseline: 5...70, noise: 0.5,
            relativeNoise: true, bounds: 0...600, absurdValue: 5_000
        ),
        MetricProfile(
            key: "sleep_duration", unit: "min", shape: .cumulative, baseline: 330...510, noise: 35,
            bounds: 300...540, dailyProbability: 0.85, absurdValue: 9_000
        ),
        MetricProfile(
            key: "body_mass", unit: "kg", shape: .single, baseline: 52...110, noise: 0.3,
            driftPerDay: -0.04...0.04, bounds: 35...250, decimals: 1, dailyProbability: 0.4, absurdValue: 9_000
        ),
        MetricProfile(
            key: "body_mass_index", unit: "kg/m2", shape: .single, baseline: 19...33, noise: 0.1,
            driftPerDay: -0.012...0.012, bounds: 12...70, decimals: 1, dailyProbability: 0.25, absurdValue: 9_000
        ),
        MetricProfile(
            key: "body_height", unit: "cm", shape: .single, baseline: 150...195, noise: 0.2, bounds: 120...230,
            decimals: 1, dailyProbability: 0.05, absurdValue: 9_000
        ),
        // One panel event a day on 30 % of days (the cuff's daily mean, as HealthKit's blood-pressure correlation).
        // The parts' bounds do not overlap, so systolic is always above diastolic.
        .panel(
            key: "blood_pressure", unit: "mm[Hg]",
            parts: [
                MetricProfile(
                    key: "systolic", unit: "mm[Hg]", shape: .meanWithRange, baseline: 108...142, noise: 5,
                    rangeBelow: 3...12, rangeAbove: 4...20, bounds: 95...220, absurdValue: 9_000),
                MetricProfile(
                    key: "diastolic", unit: "mm[Hg]", shape: .meanWithRange, baseline: 64...90, noise: 4,
                    rangeBelow: 2...8, rangeAbove: 3...12, bounds: 40...94, absurdValue: 9_000),
            ], dailyProbability: 0.3, absurdValue: 9_000),
        // The deprecated separate metrics, rarely (older producers), so the compatibility path stays exercised.
        MetricProfile(
            key: "blood_pressure_systolic", unit: "mm[Hg]", shape: .meanWithRange, baseline: 108...142, noise: 5,
            rangeBelow: 3...12, rangeAbove: 4...20, bounds: 70...220, dailyProbability: 0.02, absurdValue: 9_000
        ),
        MetricProfile(
            key: "blood_pressure_diastolic", unit: "mm[Hg]", shape: .meanWithRange, baseline: 64...92, noise: 4,
            rangeBelow: 2...8, rangeAbove: 3...12, bounds: 40...140, dailyProbability: 0.02, absurdValue: 9_000
        ),
        MetricProfile(
            key: "blood_glucose", unit: "mg/dL", shape: .meanWithRange, baseline: 85...130, noise: 8,
            rangeBelow: 5...25, rangeAbove: 10...60, bounds: 40...400, dailyProbability: 0.2, absurdValue: 90_000
        ),
        MetricProfile(
            key: "vo2_max", unit: "mL/kg/min", shape: .single, baseline: 26...52, noise: 0.5, bounds: 10...90,
            decimals: 1, dailyProbability: 0.15, absurdValue: 9_000
        ),
        MetricProfile(
            key: "body_temperature", unit: "Cel", shape: .meanWithRange, baseline: 36.4...36.9, noise: 0.15,
            rangeBelow: 0.1...0.4, rangeAbove: 0.1...0.6, bounds: 35...40, decimals: 1, dailyProbability: 0.3,
            absurdValue: 95
        ),
    ]

    /// The built-in profile for `key`, if any.
    public static func builtin(key: String) -> MetricProfile? {
        builtin.first { $0.key == key }
    }
}
