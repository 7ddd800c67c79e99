#!/usr/bin/env python3
"""Validate FHIR R4 Observation JSON files produced by daily-values-pipeline.

Three independent checks per file; any failure prints `path: message` and makes the exit status non-zero.

1. fhirkit-rs 0.1.0 (import `fhirkit`): R4 4.0.1 structure and datatypes (e.g. the dateTime regex).
2. fhir.resources 6.4.0 (pydantic<2): a second R4 model implementation.
3. Product lint of what neither checks (see shared reference §0.7): status code set, category / code codings /
   UCUM code per metric (from the exported metric catalog), system URLs, every dateTime with seconds and an offset,
   effectivePeriod = the identifier's local day, 23-25 h long, the id alphabet and length, subject (literal or
   logical), method for daily means and maxima, one provenance form, the blood-pressure panel's parts, and for vital signs
   the R4 vital-signs profile rules (value-set code, ucum-vitals-common units, the sub-profile's code and units).

Usage: validate_fhir.py [--catalog metric-catalog.json] PATH...
PATH: a .json file (one resource), a .ndjson file (one resource a line, as `storectl export` writes), or a directory
of them; every resource counts once in the `N/M valid` summary.
Without --catalog, `metric-catalog.json` next to the resources is used (the Swift tests write it there).
Setup:  python3 -m venv .venv && .venv/bin/pip install -r scripts/requirements-test.txt
"""
import argparse
import datetime as dt
import json
import pathlib
import re
import sys

import fhirkit
from fhir.resources.observation import Observation

CATALOG_FILE = "metric-catalog.json"
UCUM = "http://unitsofmeasure.org"
CATEGORY = "http://terminology.hl7.org/CodeSystem/observation-category"
STATISTICS = "http://terminology.hl7.org/CodeSystem/observation-statistics"
STATUSES = {"preliminary", "final", "amended", "entered-in-error"}  # what the product emits (a subset of the R4 required binding)
STATISTICS_CODES = {"minimum", "maximum"}
# The `method` a metric's aggregation states when no coding says it (Metric.methodStatistic); none for sum/latest.
METHOD_STATISTICS = {"mean": "average", "maximum": "maximum"}
# R4 vital-signs profile: observation-vitalsignresult codes (+ US Core 59408-5) and the required
# ucum-vitals-common binding of every valueQuantity / component.valueQuantity code.
VITAL_SIGN_CODES = {"85353-1", "9279-1", "8867-4", "2708-6", "8310-5", "8302-2", "9843-4", "29463-7", "39156-5",
                    "85354-9", "8480-6", "8462-4", "59408-5"}
UCUM_VITALS_COMMON = {"%", "cm", "[in_i]", "kg", "g", "[lb_av]", "Cel", "[degF]", "mm[Hg]", "/min", "kg/m2", "m2"}
# The R4 vital-signs sub-profile each LOINC code selects (http://hl7.org/fhir/StructureDefinition/<name>) and
# the UCUM codes it fixes.
PROFILES = {"8867-4": ("heartrate", {"/min"}), "9279-1": ("resprate", {"/min"}), "2708-6": ("oxygensat", {"%"}),
            "29463-7": ("bodyweight", {"kg", "g", "[lb_av]"}), "8302-2": ("bodyheight", {"cm", "[in_i]"}),
            "39156-5": ("bmi", {"kg/m2"}), "8310-5": ("bodytemp", {"Cel", "[degF]"}),
            "85354-9": ("bp", {"mm[Hg]"}), "8480-6": ("vitalsigns", {"mm[Hg]"}),
            "8462-4": ("vitalsigns", {"mm[Hg]"})}


def profile_of(metric):
    """The R4 profile a metric's Observations conform to (checked by vital_signs_problems), or None."""
    if metric.get("category") != "vital-signs":
        return None
    for coding in metric["codings"]:
        if coding["system"] == "http://loinc.org" and coding["code"] in PROFILES:
            return PROFILES[coding["code"]][0]
    return "vitalsigns"


def vital_signs_problems(res, metric):
    """The R4 vital-signs profile rules the R4 validators do not check, for a vital-signs metric."""
    problems = []
    codes = {c.get("code") for c in (res.get("code") or {}).get("coding") or [] if c.get("system") == "http://loinc.org"}
    if not codes & VITAL_SIGN_CODES:
        problems.append("code: a vital sign needs a LOINC code of the vital-signs value set")
    quantities = [res.get("valueQuantity")] + [c.get("valueQuantity") for c in res.get("component") or []]
    for q in filter(None, quantities):
        if q.get("code") not in UCUM_VITALS_COMMON:
            problems.append(f"valueQuantity.code {q.get('code')!r}: not in ucum-vitals-common (required binding)")
    for code in codes & set(PROFILES):
        name, units = PROFILES[code]
        for q in filter(None, quantities):
            if q.get("code") not in units:
                problems.append(f"profile {name}: unit {q.get('code')!r} must be one of {sorted(units)}")
    if "85354-9" in codes:
        parts = [{c.get("code") for c in (comp.get("code") or {}).get("coding") or []}
                 for comp in res.get("component") or []]
        for code in ("8480-6", "8462-4"):
            if sum(code in p for p in parts) != 1:
                problems.append(f"profile bp: exactly one component coded {code} is required")
        if res.get("valueQuantity") is not None:
            problems.append("profile bp: a panel has no valueQuantity")
    return problems
ID_RE = re.compile(r"^[A-Za-z0-9\-.]{1,64}$")
URI_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s\"\\]+$")
DATETIME_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$")
IDENTIFIER_RE = re.compile(r"^([A-Za-z0-9._-]{1,64})/([a-z0-9_]{1,64})/(\d{4}-\d{2}-\d{2})$")
DAY_HOURS = {23.0, 23.5, 24.0, 24.5, 25.0}  # DST days; half hours for Australia/Lord_Howe


def parse_datetime(text, where, problems):
    """A dateTime/instant with seconds and an explicit offset, as an aware datetime (or None)."""
    if not isinstance(text, str) or not DATETIME_RE.match(text):
        problems.append(f"{where}: dateTime {text!r} must have seconds and an offset (Z or ±hh:mm)")
        return None
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as error:
        problems.append(f"{where}: dateTime {text!r} is not a real instant ({error})")
        return None


def check_uri(value, where, problems):
    if not isinstance(value, str) or not URI_RE.match(value):
        problems.append(f"{where}: {value!r} is not an absolute URI")


def check_quantity(quantity, metric, where, problems, plausible=None):
    if not isinstance(quantity, dict):
        problems.append(f"{where}: missing")
        return
    if quantity.get("system") != UCUM:
        problems.append(f"{where}.system: {quantity.get('system')!r} must be {UCUM}")
    if quantity.get("code") != metric["ucum"]:
        problems.append(f"{where}.code: {quantity.get('code')!r} must be the UCUM code {metric['ucum']!r}")
    if quantity.get("unit") != metric["unitDisplay"]:
        problems.append(f"{where}.unit: {quantity.get('unit')!r} must be {metric['unitDisplay']!r}")
    value = quantity.get("value")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.append(f"{where}.value: must be a number")
    elif not (plausible or (metric["plausibleMin"], metric["plausibleMax"]))[0] <= value <= \
            (plausible or (metric["plausibleMin"], metric["plausibleMax"]))[1]:
        problems.append(f"{where}.value: outside the plausible range of the metric")


def lint(res, catalog):
    """Product rules that the R4 validators do not check."""
    problems = []
    if res.get("resourceType") != "Observation":
        return ["resourceType: must be Observation"]
    if not isinstance(res.get("id"), str) or not ID_RE.match(res["id"]):
        problems.append("id: must be 1-64 characters of [A-Za-z0-9-.]")
    check_uri((res.get("meta") or {}).get("source"), "meta.source", problems)
    if res.get("status") not in STATUSES:
        problems.append(f"status: {res.get('status')!r} is not one of {sorted(STATUSES)}")

    identifiers = res.get("identifier") or []
    if len(identifiers) != 1:
        return problems + ["identifier: exactly one identifier is expected"]
    check_uri(identifiers[0].get("system"), "identifier[0].system", problems)
    match = IDENTIFIER_RE.match(str(identifiers[0].get("value")))
    if not match:
        return problems + ["identifier[0].value: must be {patient}/{metric}/{YYYY-MM-DD}"]
    patient, key, day = match.groups()
    metric = catalog.get(key)
    if metric is None:
        return problems + [f"identifier[0].value: metric {key!r} is not in the catalog"]

    categories = [c for cat in res.get("category") or [] for c in cat.get("coding") or []]
    expected_category = [(CATEGORY, metric["category"])] if metric.get("category") else []
    if [(c.get("system"), c.get("code")) for c in categories] != expected_category:
        problems.append(f"category: must be exactly {expected_category or 'absent'}")
    codings = [(c.get("system"), c.get("code")) for c in (res.get("code") or {}).get("coding") or []]
    expected = [(c["system"], c["code"]) for c in metric["codings"]]
    if codings != expected:
        problems.append(f"code.coding: {codings} must be {expected}")
    for i, coding in enumerate((res.get("code") or {}).get("coding") or []):
        check_uri(coding.get("system"), f"code.coding[{i}].system", problems)
    if not (res.get("code") or {}).get("text"):
        problems.append("code.text: required")

    subject = res.get("subject") or {}
    logical = subject.get("identifier") or {}
    if "reference" in subject:
        if subject["reference"] != f"Patient/{patient}" or logical:
            problems.append("subject.reference: must be Patient/{patient} of the identifier")
    elif logical.get("value") != patient or len(subject) != 1:
        problems.append("subject: must be Patient/{patient} or a logical identifier with the patient id")
    else:
        check_uri(logical.get("system"), "subject.identifier.system", problems)
    if "performer" in res:
        problems.append("performer: not written (it would repeat subject)")

    period = res.get("effectivePeriod") or {}
    start = parse_datetime(period.get("start"), "effectivePeriod.start", problems)
    end = parse_datetime(period.get("end"), "effectivePeriod.end", problems)
    if start and end:
        hours = (end - start).total_seconds() / 3600
        if end <= start or hours not in DAY_HOURS:
            problems.append(f"effectivePeriod: must be one local day of 23-25 h, is {hours:g} h")
        if period["start"][:10] != day:
            problems.append("effectivePeriod.start: must fall on the identifier's local day")
    if "issued" in res:  # left out when the record had no timestamp (no real instant)
        parse_datetime(res.get("issued"), "issued", problems)

    parts = metric.get("components") or []
    if parts:
        if "valueQuantity" in res:
            problems.append("valueQuantity: a panel carries its values in components")
    else:
        check_quantity(res.get("valueQuantity"), metric, "valueQuantity", problems)
    components = res.get("component") or []
    if components and not metric["allowsMinMax"] and not parts:
        problems.append("component: the metric does not take min/max components")
    allowed = [metric.get("minimumCoding"), metric.get("maximumCoding")]
    custom = [(c["system"], c["code"]) for c in allowed if c]
    part_codes = {(c["system"], c["code"]): p for p in parts for c in p["codings"]}
    for i, component in enumerate(components):
        pairs = [(c.get("system"), c.get("code")) for c in (component.get("code") or {}).get("coding") or []]
        plausible = None
        if parts and pairs and all(p in part_codes for p in pairs):
            part = part_codes[pairs[0]]
            plausible = (part["plausibleMin"], part["plausibleMax"])
        elif parts:
            # A part's statistic: observation-statistics#minimum|maximum, then the product code {part}-{statistic}
            # (any absolute URI: the deployment names its CodeSystem) that tells the parts apart.
            named = [p for p in parts if len(pairs) == 2 and pairs[1][1] == f"{p['key']}-{pairs[0][1]}"]
            if len(pairs) != 2 or pairs[0][0] != STATISTICS or pairs[0][1] not in STATISTICS_CODES or not named:
                problems.append(f"component[{i}].code: {pairs} is not a part or a part's min/max of the panel")
            else:
                check_uri(pairs[1][0], f"component[{i}].code.coding[1].system", problems)
                plausible = (named[0]["plausibleMin"], named[0]["plausibleMax"])
        else:
            for pair in pairs:
                if pair not in custom and not (pair[0] == STATISTICS and pair[1] in STATISTICS_CODES):
                    problems.append(f"component[{i}].code: {pair} is not a min/max code of the metric")
            minimum = metric.get("minimumCoding") or {"system": STATISTICS, "code": "minimum"}
            if metric.get("minPlausibleMin") is not None and pairs == [(minimum["system"], minimum["code"])]:
                plausible = (metric["minPlausibleMin"], metric["plausibleMax"])  # the day minimum's own bound
        check_quantity(component.get("valueQuantity"), metric, f"component[{i}].valueQuantity", problems, plausible)

    method = [(c.get("system"), c.get("code")) for c in (res.get("method") or {}).get("coding") or []]
    statistic = None if metric.get("codesAggregation") else METHOD_STATISTICS.get(metric["aggregation"])
    if method != ([(STATISTICS, statistic)] if statistic else []):
        problems.append(f"method: {method} must be {[(STATISTICS, statistic)] if statistic else 'absent'}: the "
                        f"{metric['aggregation']} without a code that says it states it as exactly that method")
    if "contained" in res or "device" in res:
        problems.append("contained/device: provenance is written once, in the source extension")
    for ext in res.get("extension") or []:
        check_uri(ext.get("url"), "extension.url", problems)
    if metric.get("category") == "vital-signs":
        problems += vital_signs_problems(res, metric)
    return problems


def resources_of(path):
    """(name, text) of each resource in `path`: the file itself, or each line of an NDJSON file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return [(str(path), error)]
    if path.suffix != ".ndjson":
        return [(str(path), text)]
    return [(f"{path}:{number}", line) for number, line in enumerate(text.split("\n"), 1) if line.strip()]


def validate_resource(text, catalog):
    if isinstance(text, Exception):
        return [f"not readable: {text}"]
    try:
        res = json.loads(text)
    except json.JSONDecodeError as error:
        return [f"not readable JSON: {error}"]
    problems = [f"fhirkit: {i.severity} at {i.path}: {i.message}" for i in fhirkit.validate(res)
                if i.severity in ("error", "fatal")]
    try:
        Observation.parse_obj(res)
    except Exception as error:  # pydantic.ValidationError and model errors
        problems.append("fhir.resources: " + " | ".join(str(error).splitlines()))
    return problems + [f"lint: {p}" for p in lint(res, catalog)]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=pathlib.Path, help=f"exported metric catalog (default: {CATALOG_FILE})")
    parser.add_argument("paths", nargs="+", type=pathlib.Path)
    args = parser.parse_args(argv)
    assert fhirkit.FHIR_VERSION.startswith("4.0"), fhirkit.FHIR_VERSION

    files = []
    for path in args.paths:
        if path.is_dir():
            files += sorted(p for p in path.glob("*.json") if p.name not in (CATALOG_FILE, "manifest.json"))
            files += sorted(path.glob("*.ndjson"))
        else:
            files.append(path)
    if not files:
        print("no JSON files to validate", file=sys.stderr)
        return 2
    catalog_path = args.catalog or files[0].parent / CATALOG_FILE
    try:
        catalog = json.loads(catalog_path.read_text(encoding="utf-8"))["metrics"]
    except (OSError, ValueError, KeyError) as error:
        print(f"{catalog_path}: cannot load the metric catalog: {error}", file=sys.stderr)
        return 2

    failed = total = 0
    for path in files:
        for name, text in resources_of(path):
            total += 1
            problems = validate_resource(text, catalog)
            if problems:
                failed += 1
                for problem in problems:
                    print(f"{name}: {problem}")
            else:
                print(f"OK {name}")
    print(f"{total - failed}/{total} valid", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
