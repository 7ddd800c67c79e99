#!/usr/bin/env python3
"""Checks the chart's PrometheusRule and Grafana dashboard against promtool and a running worker.

    .venv/bin/python scripts/check-monitoring.py --bin-dir "$(swift build --show-bin-path)"

1. Renders the chart with helm (ci/postgres-values.yaml + prometheusRule + grafanaDashboard enabled, release dvp in
   namespace ingest) and takes the rules and the dashboard out of the rendered objects.
2. `promtool check rules` on the rendered rules, then `promtool test rules charts/tests/prometheus-rules.test.yaml`
   (alert unit tests: each alert fires when it should and stays silent when it should not).
3. Starts devbroker and a worker (the built binaries), publishes generated events (some invalid) and scrapes the
   worker's /metrics: `promtool check metrics` lints the exposition, and every metric name used by a rule or a
   dashboard panel must be one the worker exports (histograms with their _bucket/_sum/_count series).
4. The dead-letter rules (redrive.retentionWatch enabled): `promtool check rules` and `promtool test rules
   charts/tests/dlq-rules.test.yaml`; `dlq stats --prometheus-file` on the same devbroker's dead letters lints clean
   and exports every metric those rules use.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import helmchart  # noqa: E402
from helmchart import ROOT  # noqa: E402

import yaml  # noqa: E402

RULE_TESTS = ROOT / "charts" / "tests" / "prometheus-rules.test.yaml"
DLQ_RULE_TESTS = ROOT / "charts" / "tests" / "dlq-rules.test.yaml"
VALUES = yaml.safe_load((helmchart.CHART / "ci" / "postgres-values.yaml").read_text()) | {
    "prometheusRule": {"enabled": True},
    "grafanaDashboard": {"enabled": True},
}
PROMQL_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool",
                "offset", "inf", "nan", "le"}


def metric_names(expr: str) -> set[str]:
    """Metric names in a PromQL expression: identifiers that are not functions, keywords, labels or durations."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # string literals
    text = re.sub(r"\{[^}]*\}", "", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)  # range and subquery selectors
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)  # grouping labels
    names = set()
    for match in re.finditer(r"(?<![\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)\b(\s*\()?", text):
        name, call = match.group(1), match.group(2)
        if not call and name.lower() not in PROMQL_WORDS:
            names.add(name)
    return names


def rendered_assets() -> tuple[dict, dict]:
    objects = helmchart.objects(VALUES)
    (rule,) = [o for o in objects if o["kind"] == "PrometheusRule"]
    (config_map,) = [o for o in objects if o["kind"] == "ConfigMap"]
    (dashboard_json,) = config_map["data"].values()
    return {"groups": rule["spec"]["groups"]}, json.loads(dashboard_json)


def dead_letter_rules() -> dict:
    """The dead-letter PrometheusRule the chart renders with the retention watch on."""
    values = VALUES | {"redrive": {"retentionWatch": {"enabled": True, "pushgateway": "http://pushgateway:9091"}}}
    (rule,) = [o for o in helmchart.objects(values)
               if o["kind"] == "PrometheusRule" and o["metadata"]["name"].endswith("-dlq")]
    return {"groups": rule["spec"]["groups"]}


def dashboard_expressions(dashboard: dict) -> list[str]:
    panels = dashboard["panels"]
    assert panels and all(p.get("targets") for p in panels), "every dashboard panel needs at least one query"
    titles = [p["title"] for p in panels]
    assert len(titles) == len(set(titles)), f"duplicate panel titles: {titles}"
    # Grafana's label_values(SELECTOR, LABEL) variables: the selector is PromQL, the label is not a metric.
    variables = [re.sub(r"^label_values\((.*),\s*\w+\)$", r"\1", v["query"]["query"])
                 for v in dashboard["templating"]["list"] if v["type"] == "query"]
    return [t["expr"] for p in panels for t in p["targets"]] + variables


def run(command: list[str], **kwargs) -> str:
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise SystemExit(f"FAIL {' '.join(command)}:\n{result.stdout}{result.stderr}")
    return result.stdout


def scrape_worker(bin_dir: Path, work: Path) -> str:
    """/metrics of a worker that has consumed generated events (valid and invalid) from a devbroker."""
    bootstrap = work / "bootstrap"
    processes = []
    try:
        processes.append(subprocess.Popen(
            [bin_dir / "devbroker", "--brokers", "1", "--topic", "daily-values:3", "--topic", "daily-values.dlq:1",
             "--bootstrap-file", bootstrap], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 20
        while not (bootstrap.exists() and bootstrap.read_text().strip()):
            assert time.monotonic() < deadline, "devbroker wrote no bootstrap file in 20 s"
            time.sleep(0.1)
        brokers = bootstrap.read_text().splitlines()[0].strip()
        events = work / "events.jsonl"
        run([bin_dir / "producer", "generate", "--patients", "5", "--days", "3", "--seed", "3", "--invalid-share",
             "0.1", "--out", events])
        run([bin_dir / "producer", "publish", "--brokers", brokers, "--topic", "daily-values", "--raw", events])
        worker = subprocess.Popen(
            [bin_dir / "worker", "--brokers-file", bootstrap, "--store", f"sqlite:{work}/obs.sqlite",
             "--http-address", "127.0.0.1", "--http-port", "0", "--batch-ms", "50"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        processes.append(worker)
        port = None
        for line in worker.stderr:
            if '"http listening"' in line:
                port = json.loads(line)["port"]
                break
        assert port, "the worker did not report its HTTP port"
        # Keep reading its log so a full pipe never blocks the worker.
        threading.Thread(target=lambda: [None for _ in worker.stderr], daemon=True).start()
        deadline = time.monotonic() + 30
        while True:  # until records were upserted and dead-lettered and the lag statistics are in (every 5 s)
            text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
            if all(f"\n{name}" in text for name in ("dvp_upserts_total{", "dvp_dead_lettered_total{", "dvp_consumer_lag{")):
                # The same dead letters, as `dlq stats` exports them for the dead-letter rules.
                run([bin_dir / "dlq", "stats", "--brokers", brokers, "--prometheus-file", work / "dlq.prom"])
                return text
            assert time.monotonic() < deadline, f"the worker's /metrics never showed its series:\n{text}"
            time.sleep(0.5)
    finally:
        for process in reversed(processes):
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_rules(promtool: str, rules: dict, tests: Path, rules_file: Path) -> None:
    """`promtool check rules` and `promtool test rules` (the tests name `rules_file`); every alert has a test."""
    rules_file.write_text(yaml.safe_dump(rules, sort_keys=False, width=1000))
    shutil.copy(tests, rules_file.parent / tests.name)
    print(run([promtool, "check", "rules", rules_file]).strip())
    print(run([promtool, "test", "rules", rules_file.parent / tests.name]).strip())
    alerts = {r["alert"] for g in rules["groups"] for r in g["rules"]}
    tested = set(re.findall(r"alertname: (\w+)", tests.read_text()))
    assert alerts == tested, f"alerts of {tests.name} without a unit test: {sorted(alerts - tested)}"


def lint_metrics(promtool: str, path: Path) -> None:
    """`promtool check metrics` on an exposition file; fails with its complaints."""
    with open(path) as metrics:
        lint = subprocess.run([promtool, "check", "metrics"], stdin=metrics, capture_output=True, text=True)
    assert lint.returncode == 0, f"promtool check metrics {path.name}: {lint.stdout}{lint.stderr}"


def exported_names(exposition: str) -> set[str]:
    names = set()
    for match in re.finditer(r"^# TYPE (\S+) (\S+)$", exposition, re.M):
        name, kind = match.groups()
        names.add(name)
        if kind == "histogram":
            names |= {f"{name}_bucket", f"{name}_sum", f"{name}_count"}
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", type=Path, required=True, help="directory with worker, producer, devbroker, dlq")
    arguments = parser.parse_args()
    promtool = shutil.which("promtool") or sys.exit("no promtool (Debian package prometheus)")
    rules, dashboard = rendered_assets()

    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        test_rules(promtool, rules, RULE_TESTS, work / "rules.yaml")
        dlq_rules = dead_letter_rules()
        test_rules(promtool, dlq_rules, DLQ_RULE_TESTS, work / "dlq-rules.yaml")

        exposition = scrape_worker(arguments.bin_dir, work)
        (work / "metrics.txt").write_text(exposition)
        lint_metrics(promtool, work / "metrics.txt")
        print("promtool check metrics: the worker's exposition lints clean")
        dlq_exposition = (work / "dlq.prom").read_text()
        lint_metrics(promtool, work / "dlq.prom")
        dlq_used = set().union(*(metric_names(r["expr"]) for g in dlq_rules["groups"] for r in g["rules"]))
        dlq_unknown = dlq_used - exported_names(dlq_exposition)
        assert dlq_used and not dlq_unknown, f"dead-letter rules use metrics dlq stats does not export: {sorted(dlq_unknown)}"
        print(f"dead-letter rules: {len(dlq_used)} metrics, all exported by `dlq stats`, which lints clean")

    exported = exported_names(exposition)
    expressions = {"rules": [r["expr"] for g in rules["groups"] for r in g["rules"]],
                   "dashboard": dashboard_expressions(dashboard)}
    for source, exprs in expressions.items():
        used = set().union(*(metric_names(e) for e in exprs))
        unknown = used - exported
        assert used and not unknown, f"{source} use metrics the worker does not export: {sorted(unknown)}"
        print(f"{source}: {len(exprs)} expressions use {len(used)} metrics, all exported by the worker")
    print(f"worker exports {len(exported)} series names; OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
