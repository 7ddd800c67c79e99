#!/usr/bin/env python3
"""The chart's options reference: generated from the binaries' own option tables, and held against the chart.

Each binary the chart runs prints its option table (name, type, bounds, enum, default, environment twin, help,
secret or not) with `--print-options-json`. This script writes them, pretty-printed, to
charts/daily-values-worker/options/<program>.json (the committed, generated reference), and checks:

- that the committed reference is what the built binaries print (`--check`; needs DVP_BIN_DIR or --bin-dir);
- that every values.schema.json property annotated `"x-dvp-option": "<program> <--option>"` agrees with that option:
  the schema's type, enum and bounds lie within the option's (the chart may narrow them, never widen them), and the
  values.yaml default is the binary's default, or means "not passed" (null, "", false), or differs on purpose with
  the reason in `"x-dvp-chart-default"`.

    DVP_BIN_DIR=$(swift build --show-bin-path) scripts/chartoptions.py --write   # regenerate after a change
    DVP_BIN_DIR=$(swift build --show-bin-path) scripts/chartoptions.py --check   # what check-chart.py runs

Standard library only, so scripts/check-chart.py can import it (like helmchart.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHART = ROOT / "charts" / "daily-values-worker"
REFERENCE = CHART / "options"
# The binaries whose options the chart passes.
PROGRAMS = ("worker", "ingest")
OPTION_KEY, CHART_DEFAULT_KEY = "x-dvp-option", "x-dvp-chart-default"
NOT_PASSED = (None, "", False)


def printed_table(bin_dir: Path, program: str) -> dict[str, Any]:
    """`<program> --print-options-json`, parsed."""
    binary = bin_dir / program
    if not binary.is_file():
        raise AssertionError(f"no {binary}: build first (swift build) or set DVP_BIN_DIR / --bin-dir")
    result = subprocess.run([str(binary), "--print-options-json"], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise AssertionError(f"{program} --print-options-json exited {result.returncode}: {result.stderr.strip()}")
    return json.loads(result.stdout)


def rendered(table: dict[str, Any]) -> str:
    """The reference file's text: stable, one key per line, reviewable in a diff."""
    return json.dumps(table, indent=2, ensure_ascii=False) + "\n"


def committed(program: str) -> dict[str, Any]:
    path = REFERENCE / f"{program}.json"
    if not path.is_file():
        raise AssertionError(f"no {path.relative_to(ROOT)}: run scripts/chartoptions.py --write")
    return json.loads(path.read_text())


def bin_dir_from(argument: str | None) -> Path:
    directory = argument or os.environ.get("DVP_BIN_DIR")
    if not directory:
        raise AssertionError("set DVP_BIN_DIR (swift build --show-bin-path) or pass --bin-dir")
    return Path(directory)


def check_current(bin_dir: Path) -> str:
    """The committed reference equals what the binaries print, and prints no secret's default."""
    stale = []
    count = 0
    for program in PROGRAMS:
        table = printed_table(bin_dir, program)
        for option in table["options"]:
            secret_default = option["secret"] and option["default"] is not None
            assert not secret_default, f"{program} {option['name']}: a secret's default is printed"
        count += len(table["options"])
        path = REFERENCE / f"{program}.json"
        if not path.is_file() or rendered(table) != path.read_text():
            stale.append(program)
    assert not stale, (
        f"charts/daily-values-worker/options/{{{','.join(stale)}}}.json differ from the binaries' "
        "--print-options-json: run `DVP_BIN_DIR=$(swift build --show-bin-path) scripts/chartoptions.py --write` "
        "and commit the result"
    )
    return f"{count} options of {', '.join(PROGRAMS)} as committed"


def annotated(schema: dict[str, Any], path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """Every schema node (under `properties`) that names a binary's option, with its dotted path."""
    found = []
    if OPTION_KEY in schema:
        found.append((path, schema))
    for key, child in schema.get("properties", {}).items():
        found += annotated(child, path + (key,))
    return found


def value_at(values: dict[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = values
    for key in path:
        assert isinstance(node, dict) and key in node, f"values.yaml has no {'.'.join(path)}"
        node = node[key]
    return node


SCHEMA_TYPES = {"string": {"string"}, "integer": {"integer"}, "number": {"integer", "number"}, "boolean": {"boolean"}}


def disagreements(
    schema: dict[str, Any], values: dict[str, Any], tables: dict[str, dict[str, Any]]
) -> tuple[list[str], int]:
    """What the chart says about each annotated option that the binary does not: (problems, options compared)."""
    options = {
        program: {name: option for option in table["options"] for name in [option["name"], *option["aliases"]]}
        for program, table in tables.items()
    }
    problems: list[str] = []
    nodes = annotated(schema)
    for path, node in nodes:
        where = ".".join(path)
        program, _, name = node[OPTION_KEY].partition(" ")
        option = options.get(program, {}).get(name)
        if option is None:
            problems.append(f"{where}: {node[OPTION_KEY]!r} is no option of {program}")
            continue
        said = f"{where} ({program} {name})"
        types = node.get("type", [])
        types = {types} if isinstance(types, str) else set(types)
        if not (types - {"null"}) or not (types - {"null"}) <= SCHEMA_TYPES[option["type"]]:
            problems.append(f"{said}: schema type {sorted(types)}, the option is {option['type']}")
        if "enum" in option:
            allowed = set(option["enum"])
            if "enum" not in node:
                problems.append(f"{said}: the schema has no enum; the option accepts only {option['enum']}")
            elif extra := [v for v in node["enum"] if v not in allowed and v not in NOT_PASSED]:
                problems.append(f"{said}: the schema allows {extra}, which the option refuses ({option['enum']})")
        if "maximum" in option:
            exclusive = "exclusiveMinimum" in option
            floor = option["exclusiveMinimum"] if exclusive else option["minimum"]
            taken = f"{'(' if exclusive else '['}{floor}..{option['maximum']}]"
            low, high = node.get("minimum"), node.get("maximum")
            if low is None or high is None:
                problems.append(f"{said}: the schema has no minimum/maximum; the option takes {taken}")
            elif not (low > floor if exclusive else low >= floor) or high > option["maximum"]:
                problems.append(f"{said}: the schema allows [{low}..{high}], the option {taken}")
        default = value_at(values, path)
        reason = node.get(CHART_DEFAULT_KEY)
        same = default == option["default"] or (
            isinstance(default, (int, float)) and isinstance(option["default"], (int, float))
            and float(default) == float(option["default"])
        )
        if reason is not None:
            if same or default in NOT_PASSED:
                problems.append(
                    f"{said}: {CHART_DEFAULT_KEY} says the chart's default differs, but values.yaml has {default!r}"
                )
        elif not same and default not in NOT_PASSED:
            problems.append(
                f"{said}: values.yaml default {default!r}, the binary's {option['default']!r}: make them equal, leave "
                f"it unset (null/\"\") so the binary's applies, or say why in {CHART_DEFAULT_KEY}"
            )
        if option["secret"] and default not in NOT_PASSED:
            problems.append(f"{said}: a secret option with a value in values.yaml (use an existing Secret)")
    return problems, len(nodes)


def mutations() -> list[tuple[str, Any]]:
    """Changes to the chart, each of which the comparison must report (so it cannot pass whatever the chart says)."""

    def at(schema: dict[str, Any], path: str) -> dict[str, Any]:
        for key in path.split("."):
            schema = schema["properties"][key]
        return schema

    def values_default(values: dict[str, Any], schema: dict[str, Any]) -> None:
        values["worker"]["httpPort"] = 9000

    def widened_bound(values: dict[str, Any], schema: dict[str, Any]) -> None:
        at(schema, "worker.batchSize")["maximum"] = 100_001

    def foreign_enum(values: dict[str, Any], schema: dict[str, Any]) -> None:
        at(schema, "kafka.start")["enum"].append("newest")

    def wrong_type(values: dict[str, Any], schema: dict[str, Any]) -> None:
        at(schema, "ingest.settings.threads")["type"] = ["string", "null"]

    def below_exclusive_floor(values: dict[str, Any], schema: dict[str, Any]) -> None:
        at(schema, "worker.drainTimeoutSeconds")["minimum"] = 0

    def reason_dropped(values: dict[str, Any], schema: dict[str, Any]) -> None:
        del at(schema, "worker.batchSize")[CHART_DEFAULT_KEY]

    def unknown_option(values: dict[str, Any], schema: dict[str, Any]) -> None:
        at(schema, "worker.batchMs")[OPTION_KEY] = "worker --batch-millis"

    return [(f.__name__, f) for f in (values_default, widened_bound, foreign_enum, wrong_type,
                                      below_exclusive_floor, reason_dropped, unknown_option)]


def check_mutations() -> str:
    """Every mutation of the chart is reported, each as exactly one disagreement."""
    import copy

    import yaml

    schema = json.loads((CHART / "values.schema.json").read_text())
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    tables = {p: committed(p) for p in PROGRAMS}
    for name, mutate in mutations():
        changed_schema, changed_values = copy.deepcopy(schema), copy.deepcopy(values)
        mutate(changed_values, changed_schema)
        problems, _ = disagreements(changed_schema, changed_values, tables)
        assert len(problems) == 1, f"{name}: expected one disagreement, got {problems}"
    return f"{len(mutations())} mutations each reported"


def accepted(option: dict[str, Any]) -> str:
    """What the option takes, for a human: its enum, its bounds, or its type."""
    if "enum" in option:
        return ", ".join(f"`{value}`" for value in option["enum"])
    if "maximum" in option:
        low = f"> {option['exclusiveMinimum']}" if "exclusiveMinimum" in option else f"{option['minimum']}"
        high = option["maximum"]
        return f"{option['type']} {low} … {high}" if high < 2**62 else f"{option['type']} ≥ {low}"
    return option["type"]


def markdown(tables: dict[str, dict[str, Any]], schema: dict[str, Any]) -> str:
    """options/README.md: every option of each program, with the chart value that sets it (generated, not edited)."""
    values: dict[str, list[str]] = {}
    for path, node in annotated(schema):
        values.setdefault(node[OPTION_KEY], []).append(".".join(path))
    out = [
        "# Options reference (generated)",
        "",
        "Generated by `scripts/chartoptions.py --write` from the binaries' `--print-options-json` (worker.json,",
        "ingest.json beside this file); do not edit. `scripts/check-chart.py` fails when it, the JSON files, the",
        "values' schema or `values.yaml` disagree with the binaries. A secret's default is never printed.",
    ]
    for program, table in tables.items():
        out += ["", f"## `{program}`", "", "| option | environment | accepts | default | chart value |"]
        out.append("|---|---|---|---|---|")
        for option in table["options"]:
            if option["hidden"]:
                continue
            name = ", ".join(f"`{n}`" for n in [option["name"], *option["aliases"]])
            if option["argument"]:
                name += f" {option['argument']}"
            default = "" if option["default"] is None else f"`{json.dumps(option['default'])}`"
            default = "(secret)" if option["secret"] else default
            chart = ", ".join(f"`{path}`" for path in values.get(f"{program} {option['name']}", []))
            environment = f"`{option['environment']}`" if option["environment"] else ""
            out.append(f"| {name} | {environment} | {accepted(option)} | {default} | {chart} |")
    return "\n".join(out) + "\n"


def check_chart(tables: dict[str, dict[str, Any]] | None = None) -> str:
    """values.schema.json and values.yaml against the committed reference."""
    import yaml  # check-chart.py's Python has it; --write does not need it

    schema = json.loads((CHART / "values.schema.json").read_text())
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    tables = tables or {p: committed(p) for p in PROGRAMS}
    problems, count = disagreements(schema, values, tables)
    assert count >= 30, f"only {count} schema properties name a binary's option ({OPTION_KEY})"
    assert not problems, "\n  " + "\n  ".join(problems)
    readme = REFERENCE / "README.md"
    assert readme.is_file() and readme.read_text() == markdown(tables, schema), (
        "charts/daily-values-worker/options/README.md is not what the reference and the schema give: run "
        "`DVP_BIN_DIR=$(swift build --show-bin-path) scripts/chartoptions.py --write`"
    )
    return f"{count} chart values agree with the binaries' options"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="regenerate charts/daily-values-worker/options/*.json")
    mode.add_argument("--check", action="store_true", help="fail when the reference or the chart disagrees")
    parser.add_argument("--bin-dir", help="where the built binaries are (default $DVP_BIN_DIR)")
    args = parser.parse_args()
    bin_dir = bin_dir_from(args.bin_dir)
    if args.write:
        REFERENCE.mkdir(exist_ok=True)
        for program in PROGRAMS:
            (REFERENCE / f"{program}.json").write_text(rendered(printed_table(bin_dir, program)))
            print(f"wrote {(REFERENCE / f'{program}.json').relative_to(ROOT)}")
        schema = json.loads((CHART / "values.schema.json").read_text())
        (REFERENCE / "README.md").write_text(markdown({p: committed(p) for p in PROGRAMS}, schema))
        print(f"wrote {(REFERENCE / 'README.md').relative_to(ROOT)}")
        return 0
    print(check_current(bin_dir))
    print(check_chart())
    return 0


if __name__ == "__main__":
    sys.exit(main())
