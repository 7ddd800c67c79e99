// The built-in metric table: the one place to edit codes, units, aggregation and plausible ranges, split by concern
// into `MetricCatalog+Builtin+<Category>.swift`. Source: shared/reference/fhir-terminology.md (verified mapping §1,
// weak fits §4) and issue 40's review of each code against LOINC, the HL7 Physical Activity and CGM IGs, US Core,
// the R4 vital-signs profiles and HealthKitOnFHIR's HKSampleMapping.json (docs/CLINICAL.md, "Code review").
//
// Rules applied here:
// - A LOINC code only where it is verified from a citable source and every part fits a *daily* statistic of that
//   kind: the time aspect (24H / Reporting Period / Pt for one reading), the method (Measured / Estimated /
//   Calculated), the system (specimen) and the property (a rate such as EngRat takes a per-day unit, as 41950-7
//   steps takes `/d`). Otherwise the HealthKit coding alone (a code Apple defines: a type identifier, or a
//   category value such as HKCategoryValueSleepAnalysisAwake); a deployment can add codes through an override file.
// - Weak or missing LOINC fits (walking HR average, glucose of unknown source, basal/active energy, distance
//   41953-1, exercise 55411-3, VO2max 94122-9, swimming 93816-7 and steps 55423-8 "unspecified time", wheelchair
//   pushes 96502-0, waist 8280-0 "at umbilicus by Tape measure", lean mass 91557-9, nutrient codes whose numbers the
//   sources disagree on): the HealthKit coding only.
// - Blood pressure: one panel metric `blood_pressure` (85354-9 + 96607-7, components 8480-6/96608-5 and
//   8462-4/96609-3, see docs/CLINICAL.md). The separate systolic/diastolic keys stay for producers that already send
//   them (deprecated; valid stand-alone vital signs); the generator sends mostly the panel, the pair rarely.
// - `unitOptional` only where one unit is universal (counts: steps, flights, pushes, strokes, falls, inhaler puffs,
//   stand hours, the UV index; rates per minute); every other event without `unit` is rejected with `MissingUnit`.
// - Aggregation states how the day was computed: a specific LOINC code says it where one exists (41924-2, 96607-7,
//   97507-8: `codesAggregation`); otherwise the mapper writes `method` = observation-statistics#average for a
//   `mean` and #maximum for a `maximum` (UV index). Resting and walking heart rate are one value a day that Apple
//   computes, and the audio exposures are HealthKit's equivalent continuous level (LAeq, not an arithmetic mean):
//   their `code.text` says so, `codesAggregation` true, no `method`.
// - Category: `vital-signs` only with a code of the R4 vital-signs value set; `activity` for activity, mobility,
//   fitness and sleep; none (R4 `category` is 0..*) where no R4 category describes a home reading without
//   overclaiming: glucose, nutrition, body composition, wrist temperature, audio and UV exposure, falls, inhaler use.
// - Per-field bounds: `minPlausibleMin` where a day's minimum is plausibly below any plausible mean (glucose).
// - Lean resources (≤ 1,600 bytes): no min/max on new discrete metrics (two statistics components cost ~350 B);
//   the HealthKit coding only where no LOINC coding names the concept fully.
// - Unit aliases convert by a factor, and [degF] → Cel by (F − 32) × 5/9; converted values keep the precision they
//   were sent with (UnitConversion). HealthKit percentages are 0–1 fractions: alias `1` × 100 → `%`. kJ is not an
//   alias (`InvalidUnit`). `mmHg` and `bpm` are exact spellings of mm[Hg] and /min; `dBASPL` is HealthKit's
//   spelling of the A-weighted dB[SPL]. Glucose mmol/L converts by the molar mass of glucose (180.156 g/mol).

extension MetricCatalog {
    /// The built-in catalog: 58 HealthKit daily statistics (docs/CLINICAL.md lists each with its codes and source).
    public static let builtin = MetricCatalog(unchecked: builtinMetrics)

    static let builtinMetrics: [Metric] =
        builtinVitalSigns + builtinBloodPressure + builtinGlucose + builtinBody + builtinActivity + builtinMobility
        + builtinSleep + builtinNutrition + builtinExposure
}
