extension MetricProfile {
    /// The catalog's other daily statistics (issue 40), each on a few percent of a person's days, so the demo and
    /// the benchmarks exercise every metric while the mix stays that of the common metrics: about one event in 16.
    ///
    /// Values follow typical adult ranges (walking speed 1.0–1.5 m/s, step length 55–80 cm, deep sleep 40–110 min,
    /// city sound 55–80 dB(A)); bounds stay inside the catalog's plausible ranges.
    static let occasional: [MetricProfile] = [
        // Sleep stages and the night's wrist temperature.
        .rare("sleep_deep_duration", "min", .cumulative, 40...110, noise: 12, bounds: 0...300, absurd: 9_000),
        .rare("sleep_rem_duration", "min", .cumulative, 60...130, noise: 15, bounds: 0...300, absurd: 9_000),
        .rare("sleep_core_duration", "min", .cumulative, 180...300, noise: 25, bounds: 0...600, absurd: 9_000),
        .rare("sleep_awake_duration", "min", .cumulative, 5...40, noise: 6, bounds: 0...180, absurd: 9_000),
        .rare(
            "sleeping_wrist_temperature", "Cel", .single, 34.5...36.5, noise: 0.2, bounds: 32...38, decimals: 2,
            probability: 0.04, absurd: 95),
        // Activity and mobility.
        .rare("stand_time", "min", .cumulative, 60...300, noise: 30, bounds: 0...900, absurd: 9_000),
        .rare("stand_hours", "{#}", .cumulative, 6...14, noise: 2, bounds: 0...24, absurd: 900),
        .rare("time_in_daylight", "min", .cumulative, 10...120, noise: 20, bounds: 0...900, absurd: 9_000),
        .rare("distance_cycling", "m", .cumulative, 3_000...25_000, noise: 3_000, bounds: 0...200_000, absurd: 9e7),
        .rare(
            "distance_swimming", "m", .cumulative, 500...2_500, noise: 200, bounds: 0...10_000, probability: 0.02,
            absurd: 9e6),
        .rare(
            "swimming_stroke_count", "{#}", .cumulative, 300...1_500, noise: 120, bounds: 0...20_000,
            probability: 0.02, absurd: 9e6),
        .rare(
            "distance_wheelchair", "m", .cumulative, 1_000...6_000, noise: 500, bounds: 0...50_000,
            probability: 0.01, absurd: 9e7),
        .rare(
            "push_count", "{#}", .cumulative, 500...3_000, noise: 250, bounds: 0...20_000, probability: 0.01,
            absurd: 9e6),
        .rare("walking_speed", "m/s", .single, 1.0...1.5, noise: 0.06, bounds: 0.3...2.5, decimals: 2, absurd: 900),
        .rare("walking_step_length", "cm", .single, 55...80, noise: 3, bounds: 30...120, absurd: 9_000),
        .rare(
            "walking_double_support_percentage", "%", .single, 24...34, noise: 1.5, bounds: 15...50, decimals: 1,
            absurd: 900),
        .rare("walking_asymmetry_percentage", "%", .single, 0...8, noise: 2, bounds: 0...40, decimals: 1, absurd: 900),
        .rare("walking_steadiness", "%", .single, 55...99, noise: 3, bounds: 5...100, probability: 0.02, absurd: 900),
        .rare(
            "stair_ascent_speed", "m/s", .single, 0.3...0.6, noise: 0.04, bounds: 0.1...1.5, decimals: 2,
            absurd: 900),
        .rare(
            "stair_descent_speed", "m/s", .single, 0.3...0.7, noise: 0.04, bounds: 0.1...1.5, decimals: 2,
            absurd: 900),
        .rare(
            "six_minute_walk_distance", "m", .single, 380...620, noise: 15, bounds: 150...900, probability: 0.02,
            absurd: 90_000),
        .rare(
            "heart_rate_recovery_one_minute", "/min", .single, 15...40, noise: 4, bounds: 3...80, probability: 0.02,
            absurd: 900),
        // Body composition, glucose from a CGM.
        .rare(
            "body_fat_percentage", "%", .single, 12...38, noise: 0.4, bounds: 4...60, decimals: 1, probability: 0.02,
            absurd: 900),
        .rare(
            "lean_body_mass", "kg", .single, 40...75, noise: 0.3, bounds: 25...120, decimals: 1, probability: 0.02,
            absurd: 9_000),
        .rare(
            "waist_circumference", "cm", .single, 65...110, noise: 0.5, bounds: 50...180, decimals: 1,
            probability: 0.01, absurd: 9_000),
        .rare("cgm_glucose_mean", "mg/dL", .single, 95...160, noise: 10, bounds: 60...350, absurd: 90_000),
        // Nutrition logs.
        .rare(
            "dietary_energy_consumed", "kcal/d", .cumulative, 1_500...2_800, noise: 250, bounds: 200...6_000,
            absurd: 900_000),
        .rare("dietary_water", "mL", .cumulative, 800...2_500, noise: 300, bounds: 0...8_000, absurd: 900_000),
        .rare("dietary_protein", "g", .cumulative, 50...130, noise: 15, bounds: 0...400, absurd: 90_000),
        .rare("dietary_carbohydrates", "g", .cumulative, 150...320, noise: 35, bounds: 0...900, absurd: 90_000),
        .rare("dietary_fat_total", "g", .cumulative, 45...110, noise: 12, bounds: 0...400, absurd: 90_000),
        // Hearing, UV, events.
        .rare(
            "environmental_audio_exposure", "dB[SPL]", .single, 55...80, noise: 4, bounds: 30...110, decimals: 1,
            probability: 0.04, absurd: 9_000),
        .rare(
            "headphone_audio_exposure", "dB[SPL]", .single, 60...85, noise: 4, bounds: 30...110, decimals: 1,
            absurd: 9_000),
        .rare("uv_exposure", "{index}", .single, 1...8, noise: 1.5, bounds: 0...14, absurd: 900),
        .rare(
            "number_of_times_fallen", "{#}", .cumulative, 0...0.3, noise: 0.5, bounds: 0...3, probability: 0.01,
            absurd: 9_000),
        .rare("inhaler_usage", "{#}", .cumulative, 1...4, noise: 1, bounds: 0...12, probability: 0.01, absurd: 9_000),
    ]

    /// An occasional profile: `probability` of a person's days (3 % unless given), no min/max, no drift.
    private static func rare(
        _ key: String, _ unit: String, _ shape: Shape, _ baseline: ClosedRange<Double>, noise: Double,
        bounds: ClosedRange<Double>, decimals: Int = 0, probability: Double = 0.03, absurd: Double
    ) -> MetricProfile {
        MetricProfile(
            key: key, unit: unit, shape: shape, baseline: baseline, noise: noise, bounds: bounds, decimals: decimals,
            dailyProbability: probability, absurdValue: absurd)
    }
}
