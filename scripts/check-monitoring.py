#!/usr/bin/env python3
"""Checks the chart's PrometheusRule and Grafana dashboard against promtool, a running worker and a running gateway.

    .venv/bin/python scripts/check-monitoring.py --bin-dir "$(swift build --show-bin-path)"

1. Renders the chart with helm (ci/postgres-values.yaml + prometheusRule + grafanaDashboard + the ingest gateway
   enabled, release dvp in namespace ingest) and takes the rules and the dashboard out of the rendered objects.
2. `promtool check rules` on the rendered rules, then `promtool test rules charts/tests/prometheus-rules.test.yaml`
   (alert unit tests: each alert fires when it should and stays silent when it should not).
3. Holds the rules, the dashboard and the rule tests' input series to the declared metric families of the worker
   and of the gateway, charts/tests/{worker,ingest}-metric-families.json (rendered from
   Sources/WorkerCore/Metrics+Families.swift and Sources/IngestGateway/Service/IngestMetrics.swift and kept current
   by the Swift test MetricFamilyTableTests; no list of metric names is kept here): every metric a rule or a panel
   uses is a declared family's series (a histogram's _bucket/_sum/_count), every label they select or group by is
   one of its labels or a scrape target label, and every input series carries exactly its family's labels.
4. Starts devbroker and a worker (the built binaries), publishes generated events (some invalid) and scrapes the
   worker's /metrics once every labelled family the rules or the dashboard use has a series: `promtool check
   metrics` lints the exposition, its families (names, types, order) are the declared ones, each sample carries its
   family's labels, and every metric name used by a rule or a dashboard panel is one the worker exports.
5. Starts the gateway (`ingest`, an API key file) on the same devbroker, POSTs one valid and one invalid event
   (202, 422) and scrapes its /metrics the same way: lints clean, the declared families in order, and every
   gateway metric a rule or a panel uses is one it exports.
6. The dead-letter rules (redrive.retentionWatch enabled): `promtool check rules` and `promtool test rules
   charts/tests/dlq-rules.test.yaml`; `dlq stats --prometheus-file` on the same devbroker's dead letters lints clean
   and exports every metric those rules use.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import helmchart  # noqa: E402
from helmchart import ROOT  # noqa: E402

import yaml  # noqa: E402

RULE_TESTS = ROOT / "charts" / "tests" / "prometheus-rules.test.yaml"
DLQ_RULE_TESTS = ROOT / "charts" / "tests" / "dlq-rules.test.yaml"
FAMILIES_FILE = ROOT / "charts" / "tests" / "worker-metric-families.json"
INGEST_FAMILIES_FILE = ROOT / "charts" / "tests" / "ingest-metric-families.json"
REGENERATE = "DVP_WRITE_METRIC_FAMILIES=1 swift test --filter MetricFamilyTableTests"
# Labels Prometheus adds to every series it scrapes (the target's), which no family declares.
TARGET_LABELS = {"namespace", "job", "pod", "instance", "service", "container", "endpoint"}
VALUES = yaml.safe_load((helmchart.CHART / "ci" / "postgres-values.yaml").read_text()) | {
    "prometheusRule": {"enabled": True},
    "grafanaDashboard": {"enabled": True},
    "ingest": {"enabled": True, "auth": {"apiKeys": {"existingSecret": "daily-values-ingest-api-keys"}}},
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


def declared_families(table: Path) -> dict[str, dict]:
    """A process's declared families by each series name a query may use (a histogram's three series)."""
    families = json.loads(table.read_text())["families"]
    return {series: family for family in families for series in family["series"]}


def selector_labels(expr: str) -> list[tuple[str, set[str]]]:
    """(metric, label names) of every `metric{matchers}` selector in a PromQL expression."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    return [(m.group(1), set(re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)", m.group(2))))
            for m in re.finditer(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{([^}]*)\}", text)]


def grouping_labels(expr: str) -> set[str]:
    """Label names of every `by (…)`, `without (…)`, `on (…)` and `ignoring (…)` clause."""
    labels = set()
    for match in re.finditer(r"\b(?:by|without|on|ignoring)\s*\(([^)]*)\)", expr):
        labels |= {label.strip() for label in match.group(1).split(",") if label.strip()}
    return labels


def allowed_labels(family: dict, series: str) -> set[str]:
    """Labels a query may use on `series`: its family's, the target's, and `le` on a histogram's buckets."""
    return set(family["labels"]) | TARGET_LABELS | ({"le"} if series.endswith("_bucket") else set())


def check_against_declarations(families: dict[str, dict], expressions: dict[str, list[str]]) -> set[str]:
    """Every metric the expressions use is a declared family's series, and every label they select or group by is
    one of its labels (or a target label); returns the families they use."""
    used_families = set()
    for source, exprs in expressions.items():
        for expr in exprs:
            names = metric_names(expr)
            undeclared = sorted(names - families.keys())
            assert not undeclared, (
                f"{source} use metrics neither the worker nor the gateway declares ({FAMILIES_FILE.name}, "
                f"{INGEST_FAMILIES_FILE.name}, `{REGENERATE}`): {undeclared}\n  in: {expr}")
            used_families |= {families[n]["name"] for n in names}
            for series, labels in selector_labels(expr):
                unknown = sorted(labels - allowed_labels(families[series], series))
                assert not unknown, f"{source} select {series} by labels it does not have: {unknown}\n  in: {expr}"
            known = set().union(TARGET_LABELS, *(allowed_labels(families[n], n) for n in names))
            unknown = sorted(grouping_labels(expr) - known)
            assert not unknown, f"{source} group by labels no metric of the expression has: {unknown}\n  in: {expr}"
    return used_families


def check_rule_test_series(families: dict[str, dict], tests: Path) -> None:
    """The promtool tests' input series are series the worker can export: a declared family with exactly its
    labels (plus target labels)."""
    for test in yaml.safe_load(tests.read_text())["tests"]:
        for item in test.get("input_series", []):
            match = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?", item["series"])
            assert match, f"{tests.name}: unreadable input series {item['series']}"
            name, labels = match.group(1), set(re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)=", match.group(2) or ""))
            assert name in families, f"{tests.name}: input series of an undeclared metric: {item['series']}"
            family_labels = labels - TARGET_LABELS - ({"le"} if name.endswith("_bucket") else set())
            assert family_labels == set(families[name]["labels"]), (
                f"{tests.name}: {item['series']} has labels {sorted(family_labels)}, "
                f"the family declares {families[name]['labels']}")


def check_exposition(families: dict[str, dict], exposition: str, table: Path) -> None:
    """A process's /metrics has its declared families, in order and with their types, and every sample carries
    exactly its family's labels."""
    declared = list(dict.fromkeys((f["name"], f["type"]) for f in families.values()))
    exported = re.findall(r"^# TYPE (\S+) (\S+)$", exposition, re.M)
    assert exported == declared, (
        f"/metrics families differ from {table.relative_to(ROOT)} (stale binary, or run "
        f"`{REGENERATE}`):\n  exported {exported}\n  declared {declared}")
    for line in exposition.splitlines():
        if line.startswith("#") or not line:
            continue
        match = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ", line)
        assert match and match.group(1) in families, f"/metrics sample of no declared family: {line}"
        name = match.group(1)
        labels = set(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="', match.group(2) or ""))
        want = set(families[name]["labels"]) | ({"le"} if name.endswith("_bucket") else set())
        assert labels == want, f"/metrics sample {line!r}: labels {sorted(labels)}, declared {sorted(want)}"


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
    # Row panels (the gateway's row) only group the panels below them; every other panel needs a query.
    rows = [p for p in dashboard["panels"] if p["type"] == "row"]
    assert all(not p.get("targets") and not p.get("panels") for p in rows), "a row panel with queries or nested panels"
    panels = [p for p in dashboard["panels"] if p["type"] != "row"]
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


def listening(process: subprocess.Popen, message: str) -> dict:
    """The `message` JSON line a process logs on stderr (with its ports); keeps reading its log afterwards so a full
    pipe never blocks it."""
    found = None
    for line in process.stderr:
        if f'"{message}"' in line:
            found = json.loads(line)
            break
    assert found, f"no {message!r} log line"
    threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
    return found


def http_port(process: subprocess.Popen, message: str) -> int:
    """The HTTP port a process logs in its `message` line."""
    return listening(process, message)["port"]


def scrape_when(url: str, awaited: list[str], who: str) -> str:
    """/metrics at `url` once each family of `awaited` has a series (30 s at most)."""
    deadline = time.monotonic() + 30
    while True:
        text = urllib.request.urlopen(url, timeout=5).read().decode()
        if all(f"\n{name}{{" in text for name in awaited):
            return text
        assert time.monotonic() < deadline, f"the {who}'s /metrics never showed series of {awaited}:\n{text}"
        time.sleep(0.5)


def post_to_gateway(bin_dir: Path, work: Path, bootstrap: Path, awaited: list[str]) -> str:
    """Starts `ingest` with an API key file on the devbroker, POSTs one valid and one invalid event (a JSON array
    each; 202, 422) and returns its /metrics once each family of `awaited` has a series; stops it with SIGTERM
    (exit 0)."""
    key = "check-monitoring-" + "7" * 32
    digest = hashlib.sha256(key.encode()).hexdigest()
    (work / "api-keys").write_text(f"sha256:{digest}  tenant=monitoring  patients=*  access=all-patients\n")
    run([bin_dir / "producer", "generate", "--patients", "1", "--days", "1", "--seed", "4", "--out", work / "valid.jsonl"])
    event = json.loads((work / "valid.jsonl").read_text().splitlines()[0])
    gateway = subprocess.Popen(
        [bin_dir / "ingest", "--brokers-file", work / "bootstrap", "--api-keys", work / "api-keys",
         "--http-address", "127.0.0.1", "--http-port", "0", "--admin-address", "127.0.0.1", "--admin-port", "0",
         "--drain-timeout", "10"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        ports = listening(gateway, "ingest gateway listening")
        base = f"http://127.0.0.1:{ports['port']}"
        admin = f"http://127.0.0.1:{ports['admin_port']}"
        deadline = time.monotonic() + 20
        while True:  # /readyz: the brokers answer
            try:
                if urllib.request.urlopen(f"{admin}/readyz", timeout=5).status == 200:
                    break
            except urllib.error.HTTPError:
                pass
            assert time.monotonic() < deadline, "the gateway was not ready in 20 s"
            time.sleep(0.2)
        for body, status in ((event, 202), ({**event, "metric": "no_such_metric"}, 422)):
            request = urllib.request.Request(
                f"{base}/v1/daily-values", data=json.dumps([body]).encode(), method="POST",
                headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
            try:
                answer = urllib.request.urlopen(request, timeout=20).status
            except urllib.error.HTTPError as error:
                answer = error.code
            assert answer == status, f"the gateway answered {answer} where {status} was due"
        return scrape_when(f"{admin}/metrics", awaited, "gateway")
    finally:
        gateway.send_signal(signal.SIGTERM)
        assert gateway.wait(timeout=30) == 0, "the gateway did not exit 0 on SIGTERM"


def scrape(bin_dir: Path, work: Path, awaited: list[str], ingest_awaited: list[str]) -> tuple[str, str]:
    """/metrics of a worker that has consumed generated events (valid and invalid) from a devbroker, once each
    family of `awaited` has a series, and of a gateway that answered POSTs on the same devbroker."""
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
        port = http_port(worker, "http listening")
        # e.g. until records were upserted and dead-lettered and the lag statistics are in (every 5 s)
        text = scrape_when(f"http://127.0.0.1:{port}/metrics", awaited, "worker")
        # The same dead letters, as `dlq stats` exports them for the dead-letter rules.
        run([bin_dir / "dlq", "stats", "--brokers", brokers, "--prometheus-file", work / "dlq.prom"])
        return text, post_to_gateway(bin_dir, work, bootstrap, ingest_awaited)
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
    parser.add_argument("--bin-dir", type=Path, required=True,
                        help="directory with worker, ingest, producer, devbroker, dlq")
    arguments = parser.parse_args()
    promtool = shutil.which("promtool") or sys.exit("no promtool (Debian package prometheus)")
    rules, dashboard = rendered_assets()
    worker_families, ingest_families = declared_families(FAMILIES_FILE), declared_families(INGEST_FAMILIES_FILE)
    families = worker_families | ingest_families
    assert len(families) == len(worker_families) + len(ingest_families), "the worker and the gateway share a series"
    expressions = {"rules": [r["expr"] for g in rules["groups"] for r in g["rules"]],
                   "dashboard": dashboard_expressions(dashboard)}
    used_families = check_against_declarations(families, expressions)
    check_rule_test_series(families, RULE_TESTS)
    print(f"rules, dashboard and {RULE_TESTS.name}: every metric and label is declared "
          f"({len(used_families)} of {len({f['name'] for f in families.values()})} families used)")
    # Every labelled family the rules or the dashboard use must show series before the scrape is checked; of the
    # gateway's, those a valid and an invalid POST produce (429s and 503s are the rule tests' business).
    def labelled(table: dict[str, dict]) -> list[str]:
        return sorted(n for n in used_families if any(f["name"] == n and f["labels"] for f in table.values()))
    awaited = labelled(worker_families)
    ingest_awaited = [n for n in labelled(ingest_families)
                      if n in ("dvp_ingest_requests_total", "dvp_ingest_records_accepted_total",
                               "dvp_ingest_records_rejected_total")]
    assert ingest_awaited, "the rules and the dashboard use no labelled gateway family"

    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        test_rules(promtool, rules, RULE_TESTS, work / "rules.yaml")
        dlq_rules = dead_letter_rules()
        test_rules(promtool, dlq_rules, DLQ_RULE_TESTS, work / "dlq-rules.yaml")

        exposition, ingest_exposition = scrape(arguments.bin_dir, work, awaited, ingest_awaited)
        for who, text, table, table_file, series in (
            ("worker", exposition, worker_families, FAMILIES_FILE, awaited),
            ("gateway", ingest_exposition, ingest_families, INGEST_FAMILIES_FILE, ingest_awaited),
        ):
            (work / f"{who}-metrics.txt").write_text(text)
            lint_metrics(promtool, work / f"{who}-metrics.txt")
            print(f"promtool check metrics: the {who}'s exposition lints clean")
            check_exposition(table, text, table_file)
            print(f"the {who}'s /metrics: the declared families in order, every sample with its family's labels "
                  f"(series of {', '.join(series)})")
        dlq_exposition = (work / "dlq.prom").read_text()
        lint_metrics(promtool, work / "dlq.prom")
        dlq_used = set().union(*(metric_names(r["expr"]) for g in dlq_rules["groups"] for r in g["rules"]))
        dlq_unknown = dlq_used - exported_names(dlq_exposition)
        assert dlq_used and not dlq_unknown, f"dead-letter rules use metrics dlq stats does not export: {sorted(dlq_unknown)}"
        print(f"dead-letter rules: {len(dlq_used)} metrics, all exported by `dlq stats`, which lints clean")

    exported = exported_names(exposition) | exported_names(ingest_exposition)
    for source, exprs in expressions.items():
        used = set().union(*(metric_names(e) for e in exprs))
        unknown = used - exported
        assert used and not unknown, f"{source} use metrics neither the worker nor the gateway exports: {sorted(unknown)}"
        gateway = {n for n in used if n in ingest_families}
        assert gateway, f"{source} use no gateway metric"
        print(f"{source}: {len(exprs)} expressions use {len(used)} metrics ({len(gateway)} of the gateway), "
              f"all exported by the worker or the gateway")
    print(f"worker and gateway export {len(exported)} series names; OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
