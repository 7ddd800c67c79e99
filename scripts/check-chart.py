#!/usr/bin/env python3
"""Checks charts/daily-values-worker with the real helm: lint, render, rendered objects, rejections, value usage.

Run with a Python that has the packages in scripts/requirements-test.txt (pyyaml, jsonschema, kubernetes-validate)
and helm installed by scripts/install-k8s-tools.sh:

    scripts/install-k8s-tools.sh && DVP_BIN_DIR=$(swift build --show-bin-path) .venv/bin/python scripts/check-chart.py [-v]

What it proves (and what it cannot) is written down in charts/daily-values-worker/README.md, "What is verified".
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import chartoptions  # noqa: E402
import helmchart  # noqa: E402
from helmchart import CHART, HelmFailure  # noqa: E402

VALUES_REFERENCE = re.compile(r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
# Built-in kinds are validated (strict: unknown fields fail) against these Kubernetes OpenAPI schemas: the chart's
# kubeVersion floor and the newest the installed kubernetes-validate ships. CRDs (KEDA, Prometheus Operator) are not.
KUBERNETES_VERSIONS = ("1.25.0", kubernetes_validate.latest_version())
CRD_KINDS = {"ScaledObject", "TriggerAuthentication", "ServiceMonitor", "PrometheusRule"}
SECRET_ENV = re.compile(r"^(DVP_STORE|DVP_ID_KEY|.*(PASSWORD|SECRET|TOKEN|USERNAME|DSN|_KEY))$")
# The least time the kubelet must wait beyond the worker's own stop deadline (--drain-timeout) before SIGKILL: the
# schema minimum of worker.terminationGraceMarginSeconds. Checked on every rendered pod spec, whatever the values.
MINIMUM_GRACE_MARGIN = 5
POD_TEMPLATE_KINDS = {"Deployment", "Job", "StatefulSet", "DaemonSet", "ReplicaSet"}
SCHEMA_FAILURE = "values don't meet the specifications of the schema"


class Check:
    """Collects pass/fail lines; `run` never stops at the first failure so one run shows every problem."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        self.failures: list[str] = []
        self.passed = 0

    def run(self, name: str, body: Callable[[], str | None]) -> None:
        try:
            detail = body()
        except Exception as error:  # noqa: BLE001 — every error is a failed check, reported with its type
            message = str(error) if isinstance(error, AssertionError) else f"{type(error).__name__}: {error}"
            self.failures.append(f"{name}: {message}")
            print(f"FAIL  {name}: {message}")
            return
        self.passed += 1
        print(f"ok    {name}{f' — {detail}' if detail and self.verbose else ''}")


# MARK: - Chart loading and rendering


def merge(base: Any, override: Any) -> Any:
    """Helm's coalescing for user values: maps merge recursively, everything else replaces."""
    if isinstance(base, dict) and isinstance(override, dict):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = merge(base.get(key), value) if key in base else copy.deepcopy(value)
        return merged
    return copy.deepcopy(override)


class Chart:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.values = yaml.safe_load((root / "values.yaml").read_text())
        self.schema = json.loads((root / "values.schema.json").read_text())
        self.sources = {path.name: path.read_text() for path in sorted((root / "templates").iterdir())}

    def values_with(self, override: dict[str, Any]) -> dict[str, Any]:
        """What helm computes from values.yaml and `-f override` (for the assertions on rendered objects)."""
        return merge(self.values, override)


def documents(override: dict[str, Any]) -> list[dict[str, Any]]:
    """`helm template` with `override`; each document must be a Kubernetes object valid for its API schema."""
    objects = helmchart.objects(override)
    for parsed in objects:
        name = parsed["_template"]
        assert isinstance(parsed, dict), f"{name}: a document is not a mapping"
        for key in ("apiVersion", "kind", "metadata"):
            assert key in parsed, f"{name}: document without {key}"
        assert len(parsed["metadata"]["name"]) <= 63, f"{name}: name longer than 63: {parsed['metadata']['name']}"
        validate_kubernetes({k: v for k, v in parsed.items() if k != "_template"}, name)
    return objects


def validate_kubernetes(manifest: dict[str, Any], template: str) -> None:
    if manifest["kind"] in CRD_KINDS:
        return
    for version in KUBERNETES_VERSIONS:
        try:
            kubernetes_validate.validate(manifest, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            where = ".".join(map(str, error.path))
            raise AssertionError(
                f"{template}: {manifest['kind']} invalid for Kubernetes {version} at {where}: {error.message}"
            )
        except kubernetes_validate.SchemaNotFoundError as error:
            raise AssertionError(f"{template}: no Kubernetes {version} schema for {manifest['kind']}: {error}")


def by_kind(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == kind]


def render_ok(chart: Chart, override: dict[str, Any]) -> list[dict[str, Any]]:
    try:
        return documents(override)
    except HelmFailure as error:
        raise AssertionError(f"helm template failed: {error}") from error


# MARK: - Assertions on rendered objects


def check_locked_down(
    pod: dict[str, Any], values: dict[str, Any], container_name: str, literal_store: bool = False
) -> tuple[dict[str, Any], dict[str, Any], dict[str, str], dict[str, Any]]:
    """The pod every process of the chart runs in: no service-account token, non-root with the chart's UID, seccomp
    RuntimeDefault, one container with a read-only root, no privilege escalation and no capability, /tmp an
    emptyDir, Secret volumes 0400, secrets never literal env values, the chart's image. Returns (container, env by
    name, mounts by path, volumes by name)."""
    spec = pod["spec"]
    assert spec["automountServiceAccountToken"] is False, "service-account token is mounted"
    security = spec["securityContext"]
    assert security["runAsNonRoot"] is True and security["runAsUser"] == values["podSecurityContext"]["runAsUser"]
    assert security["seccompProfile"] == {"type": "RuntimeDefault"}, "seccomp is not RuntimeDefault"
    (container,) = spec["containers"]
    assert container["name"] == container_name
    context = container["securityContext"]
    assert context["readOnlyRootFilesystem"] is True and context["allowPrivilegeEscalation"] is False
    assert context["capabilities"] == {"drop": ["ALL"]}, "capabilities are not all dropped"
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert "emptyDir" in volumes[mounts["/tmp"]], "/tmp is not an emptyDir"
    assert set(mounts.values()) <= set(volumes), "a volumeMount names no volume"
    env = {e["name"]: e for e in container["env"]}
    assert len(env) == len(container["env"]), "duplicate env var names"
    for name, entry in env.items():
        # A literal is allowed for a secret-looking name only where it is not the secret: the SQLite path, the FHIR
        # URL (the schema keeps credentials out of it) or the path of a file in a mounted Secret (DVP_FHIR_CLIENT_KEY).
        literal_ok = (name == "DVP_STORE" and literal_store) or (
            "value" in entry and secret_file(entry["value"], mounts, volumes) is not None
        )
        if SECRET_ENV.match(name) and not literal_ok:
            assert "value" not in entry, f"{name} carries a literal value; secrets must be references"
    for volume in volumes.values():
        if "secret" in volume:
            mode = volume["secret"].get("defaultMode")
            assert mode == 0o400, f"Secret volume {volume['name']} has defaultMode {mode!r}, not 0400"
    check_image(container, values)
    return container, env, mounts, volumes


def check_pod(pod: dict[str, Any], values: dict[str, Any], container_name: str) -> None:
    container, env, mounts, volumes = check_locked_down(
        pod, values, container_name, literal_store=values["store"]["type"] in ("sqlite", "fhir"))
    check_shutdown_deadline(pod["spec"], values)
    check_id_key(container, env, mounts, volumes, values)
    for name, key in (("DVP_IDENTIFIER_SYSTEM", "identifierSystem"), ("DVP_SOURCE_EXTENSION_URL", "sourceExtensionURL")):
        assert env[name]["value"] == values["worker"][key] != "", f"{name} is not worker.{key}"
    # Empty: not passed, so the worker's own default applies (no default written twice).
    for name, key in (("DVP_RETRACTION_MODE", "retractionMode"), ("DVP_SUBJECT_REFERENCE", "subjectReference"),
                      ("DVP_ON_VERSION_CONFLICT", "onVersionConflict"), ("DVP_LOG_LEVEL", "logLevel")):
        assert env.get(name, {}).get("value", "") == values["worker"][key], f"{name} is not worker.{key}"
    system = values["worker"]["patientIdentifierSystem"]
    assert env.get("DVP_PATIENT_IDENTIFIER_SYSTEM", {}).get("value", "") == system, "DVP_PATIENT_IDENTIFIER_SYSTEM"
    device = env.get("DVP_STORE_DEVICE_NAME", {}).get("value")
    assert device == ("true" if values["worker"]["storeDeviceName"] else None), "DVP_STORE_DEVICE_NAME"
    store = env.get("DVP_STORE")
    postgres = values["store"]["postgres"]
    if values["store"]["type"] == "postgres" and postgres["mountAsFile"]:
        assert store is None, "DVP_STORE set although the DSN is mounted as a file"
        found = secret_file(env["DVP_STORE_FILE"]["value"], mounts, volumes)
        assert found == (postgres["existingSecret"], postgres["dsnKey"]), f"DVP_STORE_FILE is {found}, not the DSN"
    elif values["store"]["type"] == "postgres":
        assert "DVP_STORE_FILE" not in env, "DVP_STORE_FILE beside DVP_STORE"
        assert store["valueFrom"]["secretKeyRef"] == {
            "name": postgres["existingSecret"],
            "key": postgres["dsnKey"],
        }, "DVP_STORE is not the DSN Secret"
    elif values["store"]["type"] == "fhir":
        check_fhir(env, mounts, volumes, values["store"]["fhir"])
    else:
        path = values["store"]["sqlite"]["path"]
        assert store["value"] == f"sqlite:{path}" and "emptyDir" in volumes[mounts[path.rsplit("/", 1)[0]]]
    assert not any(n.startswith("DVP_FHIR_") for n in env) or values["store"]["type"] == "fhir", "FHIR env, other store"
    for prop, value in values["kafka"]["properties"].items():
        rendered = env["DVP_X_" + prop.replace(".", "_").upper()]["value"]
        assert rendered == (str(value).lower() if isinstance(value, bool) else str(value)), f"property {prop}"
    if values["kafka"]["sasl"]["enabled"]:
        sasl = values["kafka"]["sasl"]
        references = [("DVP_X_SASL_USERNAME", "usernameKey")]
        if sasl["mountPasswordAsFile"]:
            assert "DVP_X_SASL_PASSWORD" not in env, "the SASL password both as a file and as an env var"
            found = secret_file(env["DVP_XFILE_SASL_PASSWORD"]["value"], mounts, volumes)
            assert found == (sasl["existingSecret"], sasl["passwordKey"]), f"DVP_XFILE_SASL_PASSWORD is {found}"
        else:
            references.append(("DVP_X_SASL_PASSWORD", "passwordKey"))
        for name, key in references:
            reference = env[name]["valueFrom"]["secretKeyRef"]
            assert reference == {"name": sasl["existingSecret"], "key": sasl[key]}, f"{name} -> {reference}"
    for prop, ref in values["kafka"]["secretProperties"].items():
        name = "DVP_XFILE_" + prop.replace(".", "_").upper()
        found = secret_file(env[name]["value"], mounts, volumes)
        assert found == (ref["existingSecret"], ref["key"]), f"{name} is {found}, not a mounted Secret file"
        assert "DVP_X_" + prop.replace(".", "_").upper() not in env, f"{prop} also as a plain env var"


def check_image(container: dict[str, Any], values: dict[str, Any]) -> None:
    """repository@digest when image.digest is set, else repository:tag (tag defaulting to the appVersion)."""
    image = values["image"]
    if image["digest"]:
        assert container["image"] == f"{image['repository']}@{image['digest']}", f"image {container['image']}"
    else:
        assert container["image"].startswith(image["repository"] + ":") and "@" not in container["image"] or (
            "@sha256:" in image["tag"]), f"image {container['image']}"


def check_network_policy(chart: Chart, override: dict[str, Any]) -> str:
    """Off by default; on: ingress only to the HTTP port from metricsFrom and probeCIDRs; egress as configured."""
    objects = render_ok(chart, override)
    values = chart.values_with(override)
    policies = by_kind(objects, "NetworkPolicy")
    policy_values = values["networkPolicy"]
    if not policy_values["enabled"]:
        assert not policies, "a NetworkPolicy although networkPolicy.enabled is false"
        return "none"
    (policy,) = policies
    (deployment,) = by_kind(objects, "Deployment")
    spec = policy["spec"]
    assert spec["podSelector"]["matchLabels"] == deployment["spec"]["selector"]["matchLabels"], "selects other pods"
    peers = policy_values["metricsFrom"] + [{"ipBlock": {"cidr": c}} for c in policy_values["probeCIDRs"]]
    if peers:
        (rule,) = spec["ingress"]
        assert rule["ports"] == [{"port": "http-metrics", "protocol": "TCP"}], f"ingress ports {rule['ports']}"
        assert rule["from"] == peers, f"ingress from {rule['from']}"
    else:
        assert spec["ingress"] == [], f"ingress {spec['ingress']} with no peers configured"
    egress = policy_values["egress"]
    assert ("Egress" in spec["policyTypes"]) == (egress is not None), f"policyTypes {spec['policyTypes']}"
    assert spec.get("egress") == egress, f"egress {spec.get('egress')}"
    return f"ingress from {len(peers)} peers, egress {'open' if egress is None else len(egress)}"


def secret_file(path: str, mounts: dict[str, str], volumes: dict[str, Any]) -> tuple[str, str] | None:
    """(Secret name, key) when `path` is a file the pod gets from a mounted Secret volume, else None."""
    directory, _, file = path.rpartition("/")
    volume = volumes.get(mounts.get(directory, ""), {})
    if "secret" not in volume:
        return None
    items = {i["path"]: i["key"] for i in volume["secret"].get("items", [])}
    if items and file not in items:
        return None
    return volume["secret"]["secretName"], items.get(file, file)


# The FHIR store's file settings: env var -> (the values block under store.fhir, its key value naming the file).
FHIR_FILES = {
    "DVP_FHIR_TOKEN_FILE": ("token", "existingSecret", "key"),
    "DVP_FHIR_CLIENT_SECRET_FILE": ("oauth", "existingSecret", "clientSecretKey"),
    "DVP_FHIR_CA_FILE": ("tls", "existingSecret", "caKey"),
    "DVP_FHIR_CLIENT_CERT": ("tls", "existingSecret", "certKey"),
    "DVP_FHIR_CLIENT_KEY": ("tls", "existingSecret", "keyKey"),
}


def check_fhir(env: dict[str, Any], mounts: dict[str, str], volumes: dict[str, Any], fhir: dict[str, Any]) -> None:
    """DVP_STORE=fhir+<url>; every secret a file of the Secret and key the values name, present exactly when set."""
    assert env["DVP_STORE"]["value"] == f"fhir+{fhir['url']}", f"DVP_STORE is {env['DVP_STORE']}"
    for name, key in (("DVP_FHIR_BATCH_SIZE", "batchSize"), ("DVP_FHIR_BUNDLES_IN_FLIGHT", "bundlesInFlight"),
                      ("DVP_FHIR_CONNECT_TIMEOUT", "connectTimeoutSeconds")):
        wanted = None if fhir.get(key) is None else str(fhir[key])
        assert env.get(name, {}).get("value") == wanted, f"{name} is not store.fhir.{key} (absent when null)"
    for name, (block, secret, key) in FHIR_FILES.items():
        wanted = fhir[block][key] if fhir[block][secret] and (block != "oauth" or fhir["oauth"]["tokenURL"]) else ""
        if not wanted:
            assert name not in env, f"{name} set although store.fhir.{block}.{key} is not in use"
            continue
        found = secret_file(env[name]["value"], mounts, volumes)
        assert found == (fhir[block][secret], wanted), f"{name} = {env[name]['value']} is {found}, not a mounted file"
    oauth = fhir["oauth"]
    for name, value in (("DVP_FHIR_TOKEN_URL", oauth["tokenURL"]), ("DVP_FHIR_CLIENT_ID", oauth["clientID"]),
                        ("DVP_FHIR_SCOPE", oauth["scope"] if oauth["tokenURL"] else "")):
        assert env.get(name, {}).get("value", "") == value, f"{name} is not store.fhir.oauth's"
    assert "DVP_FHIR_TOKEN_FILE" not in env or "DVP_FHIR_TOKEN_URL" not in env, "token file and OAuth2 together"


def drain_timeout_argument(container: dict[str, Any]) -> int:
    """The one `--drain-timeout N` (or `--drain-timeout=N`) in the container's args."""
    args = [str(a) for a in container.get("args", [])]
    found = [
        args[i + 1] if a == "--drain-timeout" and i + 1 < len(args) else a.split("=", 1)[1]
        for i, a in enumerate(args)
        if a == "--drain-timeout" or a.startswith("--drain-timeout=")
    ]
    assert len(found) == 1, f"container {container['name']}: {len(found)} --drain-timeout arguments in {args}"
    assert re.fullmatch(r"[0-9]+", found[0]), f"container {container['name']}: --drain-timeout {found[0]!r}"
    return int(found[0])


def check_shutdown_deadline(spec: dict[str, Any], values: dict[str, Any]) -> str:
    """One shutdown deadline: every container gets `--drain-timeout` = worker.drainTimeoutSeconds as an argument
    (no DVP_DRAIN_TIMEOUT env that could disagree), and the kubelet waits at least MINIMUM_GRACE_MARGIN longer."""
    drain = values["worker"]["drainTimeoutSeconds"]
    grace = spec["terminationGracePeriodSeconds"]
    for container in spec["containers"]:
        argument = drain_timeout_argument(container)
        assert argument == drain, f"container {container['name']}: --drain-timeout {argument}, values say {drain}"
        names = [e["name"] for e in container.get("env", [])]
        assert "DVP_DRAIN_TIMEOUT" not in names, f"container {container['name']}: DVP_DRAIN_TIMEOUT env beside the flag"
        assert grace >= argument + MINIMUM_GRACE_MARGIN, f"grace {grace} < --drain-timeout {argument} + margin"
    assert grace == drain + values["worker"]["terminationGraceMarginSeconds"], f"grace {grace} is not derived"
    return f"grace {grace} = drain {drain} + {grace - drain}"


def check_id_key(
    container: dict[str, Any],
    env: dict[str, Any],
    mounts: dict[str, str],
    volumes: dict[str, Any],
    values: dict[str, Any],
) -> None:
    """A key Secret mounted as DVP_ID_KEY_FILE, or (only with idKey.allowDevelopmentKey) --allow-development-key."""
    args = [str(a) for a in container.get("args", [])]
    if values["idKey"]["existingSecret"]:
        key_dir = env["DVP_ID_KEY_FILE"]["value"].rsplit("/", 1)[0]
        assert key_dir in mounts, f"DVP_ID_KEY_FILE is not under a mounted volume: {key_dir}"
        secret = volumes[mounts[key_dir]]["secret"]["secretName"]
        assert secret == values["idKey"]["existingSecret"], f"id key volume from Secret {secret}"
        assert "--allow-development-key" not in args, "--allow-development-key although an id key Secret is mounted"
    else:
        assert values["idKey"]["allowDevelopmentKey"] is True, "rendered without an id key and without the opt-in"
        assert "--allow-development-key" in args, "no id key and no --allow-development-key: the worker would exit 2"
        assert "DVP_ID_KEY_FILE" not in env and "id-key" not in volumes, "an id key file without a Secret"


def pod_specs(objects: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Every pod spec in the rendered objects: workload templates and CronJob job templates."""
    specs = []
    for o in objects:
        if o["kind"] in POD_TEMPLATE_KINDS:
            specs.append((f"{o['kind']}/{o['metadata']['name']}", o["spec"]["template"]["spec"]))
        elif o["kind"] == "CronJob":
            specs.append((f"CronJob/{o['metadata']['name']}", o["spec"]["jobTemplate"]["spec"]["template"]["spec"]))
    return specs


def check_every_pod_deadline(chart: Chart, override: dict[str, Any], expected_pods: int) -> str:
    objects = render_ok(chart, override)
    values = chart.values_with(override)
    specs = pod_specs(objects)
    assert len(specs) == expected_pods, f"{len(specs)} pod specs, expected {expected_pods}"
    return "; ".join(f"{name}: {check_shutdown_deadline(spec, values)}" for name, spec in specs)


def check_development_key(chart: Chart, override: dict[str, Any]) -> str:
    detail = check_scenario(chart, override, {"Deployment", "Service", "ServiceAccount", "PodDisruptionBudget"})
    notes = helmchart.notes(override)
    assert "WARNING" in notes and "development key" in notes, "NOTES.txt does not warn about the development key"
    return detail


def is_gateway(o: dict[str, Any]) -> bool:
    return o["metadata"].get("labels", {}).get("app.kubernetes.io/component") == "ingest"


def check_scenario(chart: Chart, override: dict[str, Any], expected_kinds: set[str]) -> str:
    """The worker's objects (of `expected_kinds`, each once), and the gateway's exactly when ingest.enabled."""
    rendered = render_ok(chart, override)
    values = chart.values_with(override)
    assert not by_kind(rendered, "Secret"), "the chart must never create Secrets"
    objects = [o for o in rendered if not is_gateway(o)]
    gateway = [o for o in rendered if is_gateway(o)]
    if values["ingest"]["enabled"]:
        gateway_detail = "; gateway: " + check_ingest(gateway, objects, values)
    else:
        assert not gateway, f"gateway objects although ingest.enabled is false: {[o['kind'] for o in gateway]}"
        gateway_detail = ""
    kinds = sorted(o["kind"] for o in objects)
    assert set(kinds) == expected_kinds, f"kinds {kinds}, expected {sorted(expected_kinds)}"
    # One object of each kind, but for the storectl CronJobs (finalize, retention).
    assert len(kinds) - kinds.count("CronJob") == len(set(kinds) - {"CronJob"}), f"duplicate kinds {kinds}"
    assert len(pod_specs(objects)) == sum(kinds.count(k) for k in ("Deployment", "Job", "CronJob")), "a pod spec is not checked"
    assert "Secret" not in kinds, "the chart must never create Secrets"
    partitions = values["kafka"]["partitions"]
    (deployment,) = by_kind(objects, "Deployment")
    pod = deployment["spec"]["template"]
    selector = deployment["spec"]["selector"]["matchLabels"]
    assert selector.items() <= pod["metadata"]["labels"].items(), "selector does not match the pod labels"
    check_pod(pod, values, "worker")
    container = pod["spec"]["containers"][0]
    probes = {k: container[k]["httpGet"]["path"] for k in ("startupProbe", "livenessProbe", "readinessProbe")}
    assert probes == {"startupProbe": "/healthz", "livenessProbe": "/healthz", "readinessProbe": "/readyz"}, probes
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["DVP_GROUP"] == values["kafka"]["group"] and env["DVP_START"] == values["kafka"]["start"]
    mode = values["autoscaling"]["mode"]
    if mode == "none":
        assert deployment["spec"]["replicas"] == values["replicaCount"] <= partitions
    else:
        assert "replicas" not in deployment["spec"], "replicas set while an autoscaler owns them"
    for scaled in by_kind(objects, "ScaledObject"):
        assert scaled["spec"]["maxReplicaCount"] <= partitions
        assert scaled["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
        (trigger,) = scaled["spec"]["triggers"]
        assert trigger["type"] == "kafka" and trigger["metadata"]["consumerGroup"] == values["kafka"]["group"]
        assert all(isinstance(v, str) for v in trigger["metadata"].values()), "KEDA trigger metadata must be strings"
    for hpa in by_kind(objects, "HorizontalPodAutoscaler"):
        assert hpa["spec"]["maxReplicas"] <= partitions
        assert hpa["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    (service,) = by_kind(objects, "Service")
    assert (
        service["spec"]["selector"] == selector and service["spec"]["ports"][0]["port"] == values["worker"]["httpPort"]
    )
    for job in by_kind(objects, "Job"):
        job_pod = job["spec"]["template"]
        check_pod(job_pod, values, "backfill")
        job_container = job_pod["spec"]["containers"][0]
        assert job_container["args"][-3:] == ["--start", values["backfill"]["start"], "--until-caught-up"]
        job_env = {e["name"]: e.get("value") for e in job_container["env"]}
        assert job_env["DVP_GROUP"] == values["backfill"]["group"] != values["kafka"]["group"]
        assert job_pod["spec"]["restartPolicy"] == "Never"
        assert not (selector.items() <= job_pod["metadata"]["labels"].items()), "Job pods match the Deployment selector"
    for cronjob in by_kind(objects, "CronJob"):
        check_storectl_cronjob(cronjob, values, selector)
    return f"{len(objects)} objects: {', '.join(kinds)}{gateway_detail}"


# The gateway's flags set from ingest.settings: values key -> the flag's environment twin.
INGEST_SETTINGS = {
    "maxRecords": "DVP_MAX_RECORDS", "maxBodyBytes": "DVP_MAX_BODY_BYTES",
    "maxConcurrentRequests": "DVP_MAX_CONCURRENT_REQUESTS", "maxInFlightBytes": "DVP_MAX_IN_FLIGHT_BYTES",
    "requestTimeoutSeconds": "DVP_REQUEST_TIMEOUT", "idempotencyTTLSeconds": "DVP_IDEMPOTENCY_TTL",
    "idempotencyMaxKeys": "DVP_IDEMPOTENCY_MAX_KEYS", "idempotencyMaxRecords": "DVP_IDEMPOTENCY_MAX_RECORDS",
    "threads": "DVP_THREADS", "maxConnections": "DVP_MAX_CONNECTIONS",
    "maxConnectionsPerAddress": "DVP_MAX_CONNECTIONS_PER_ADDRESS", "maxTenantRequests": "DVP_MAX_TENANT_REQUESTS",
    "maxTenantInFlightBytes": "DVP_MAX_TENANT_IN_FLIGHT_BYTES", "headTimeoutSeconds": "DVP_HEAD_TIMEOUT",
    "minBodyRate": "DVP_MIN_BODY_RATE",
}
# The Kafka connection the gateway shares with the workers: the same env entries in both containers.
KAFKA_CONNECTION = re.compile(r"^(DVP_BROKERS|DVP_TOPIC|DVP_X_SECURITY_PROTOCOL|DVP_X_SASL_.*|DVP_XFILE_.*|DVP_X_SSL_.*_LOCATION)$")


def check_ingest(gateway: list[dict[str, Any]], workers: list[dict[str, Any]], values: dict[str, Any]) -> str:
    """The gateway's objects: its Deployment in the workers' locked-down pod (command `ingest`, one shutdown
    deadline after a preStop sleep, probes), credentials and Kafka material as files of the Secrets the values name,
    the workers' Kafka connection, the settings given and no others; its Service, HPA, PDB and ServiceMonitor
    selecting its pods only, and the workers' selecting none of them."""
    ingest = values["ingest"]
    kinds = sorted(o["kind"] for o in gateway)
    expected = ["Deployment", "Service", "Service"] + (["HorizontalPodAutoscaler"] if ingest["autoscaling"]["enabled"] else []) + (
        ["PodDisruptionBudget"] if ingest["podDisruptionBudget"]["enabled"] else []) + (
        ["ServiceMonitor"] if values["serviceMonitor"]["enabled"] else [])
    assert kinds == sorted(expected), f"gateway kinds {kinds}, expected {sorted(expected)}"
    (deployment,) = by_kind(gateway, "Deployment")
    (worker,) = [d for d in by_kind(workers, "Deployment")]
    pod = deployment["spec"]["template"]
    selector = deployment["spec"]["selector"]["matchLabels"]
    assert selector.items() <= pod["metadata"]["labels"].items(), "gateway selector does not match its pod labels"
    worker_selector = worker["spec"]["selector"]["matchLabels"]
    assert not worker_selector.items() <= pod["metadata"]["labels"].items(), "the workers' selector matches gateway pods"
    assert not selector.items() <= worker["spec"]["template"]["metadata"]["labels"].items(), "selects worker pods"
    for job in by_kind(workers, "Job") + by_kind(workers, "CronJob"):
        labels = (job["spec"]["template"] if job["kind"] == "Job" else job["spec"]["jobTemplate"]["spec"]["template"])
        assert not selector.items() <= labels["metadata"]["labels"].items(), f"selects {job['kind']} pods"
    container, env, mounts, volumes = check_locked_down(pod, values, "ingest")
    spec = pod["spec"]
    assert container["command"] == ["/usr/local/bin/ingest"], container["command"]
    # One shutdown deadline: preStop sleep, then --drain-timeout, then a margin before SIGKILL.
    drain = drain_timeout_argument(container)
    assert drain == ingest["drainTimeoutSeconds"] and "DVP_DRAIN_TIMEOUT" not in env, f"--drain-timeout {drain}"
    sleep = container["lifecycle"]["preStop"]["exec"]["command"]
    assert sleep == ["/bin/sleep", str(ingest["preStopSleepSeconds"])], f"preStop {sleep}"
    grace = spec["terminationGracePeriodSeconds"]
    assert grace == ingest["preStopSleepSeconds"] + drain + ingest["terminationGraceMarginSeconds"], f"grace {grace}"
    assert grace >= ingest["preStopSleepSeconds"] + drain + MINIMUM_GRACE_MARGIN, f"grace {grace} leaves no margin"
    port, admin_port = ingest["httpPort"], ingest["adminPort"]
    assert container["ports"] == [{"name": "http", "containerPort": port, "protocol": "TCP"},
                                  {"name": "admin", "containerPort": admin_port, "protocol": "TCP"}], container["ports"]
    assert env["DVP_HTTP_PORT"]["value"] == str(port), "DVP_HTTP_PORT is not ingest.httpPort"
    assert env["DVP_ADMIN_PORT"]["value"] == str(admin_port), "DVP_ADMIN_PORT is not ingest.adminPort"
    # The probes on the admin listener: the public port serves neither them nor /metrics.
    probes = {k: (container[k]["httpGet"]["path"], container[k]["httpGet"]["port"]) for k in ("livenessProbe", "readinessProbe")}
    assert probes == {"livenessProbe": ("/healthz", "admin"), "readinessProbe": ("/readyz", "admin")}, probes
    assert "startupProbe" not in container, "a startup probe (the gateway is up in well under a second)"
    if ingest["autoscaling"]["enabled"]:
        assert "replicas" not in deployment["spec"], "replicas set while the HPA owns them"
    else:
        assert deployment["spec"]["replicas"] == ingest["replicaCount"]
    # Credentials: files of the Secrets the values name, exactly those in use.
    auth = ingest["auth"]
    for name, block in (("DVP_API_KEYS", auth["apiKeys"]), ("DVP_JWKS", auth["jwt"])):
        if block["existingSecret"]:
            found = secret_file(env[name]["value"], mounts, volumes)
            assert found == (block["existingSecret"], block["key"]), f"{name} is {found}, not a mounted Secret file"
        else:
            assert name not in env, f"{name} without its Secret"
    lifetime = auth["jwt"]["maxLifetimeSeconds"]
    jwt = {"DVP_JWT_AUDIENCE": auth["jwt"]["audience"], "DVP_JWT_ISSUER": auth["jwt"]["issuer"],
           "DVP_JWT_MAX_LIFETIME": "" if lifetime is None else str(lifetime)}
    for name, value in jwt.items():
        assert env.get(name, {}).get("value", "") == (value if auth["jwt"]["existingSecret"] else ""), name
    args = [str(a) for a in container["args"]]
    assert ("--insecure-no-auth" in args) == auth["insecureNoAuth"] == (
        not auth["apiKeys"]["existingSecret"] and not auth["jwt"]["existingSecret"]), f"args {args}"
    # The workers' Kafka connection, entry for entry; each secret a mounted Secret file or a secretKeyRef.
    worker_env = {e["name"]: e for e in worker["spec"]["template"]["spec"]["containers"][0]["env"]}
    shared = {n: e for n, e in env.items() if KAFKA_CONNECTION.match(n)}
    assert shared == {n: e for n, e in worker_env.items() if KAFKA_CONNECTION.match(n)}, "not the workers' Kafka connection"
    for name, entry in shared.items():
        if name.startswith("DVP_XFILE_") or name.endswith("_LOCATION"):
            assert secret_file(entry["value"], mounts, volumes), f"{name}: {entry['value']} is not a mounted Secret file"
    # Tuning: the gateway's own properties and settings, nothing of the consumers', nothing not given.
    for prop, value in values["kafka"]["properties"].items():
        name = "DVP_X_" + prop.replace(".", "_").upper()
        assert name not in env or prop in ingest["kafkaProperties"], f"the consumers' {prop} given to the gateway"
    for prop, value in ingest["kafkaProperties"].items():
        rendered = env["DVP_X_" + prop.replace(".", "_").upper()]["value"]
        assert rendered == (str(value).lower() if isinstance(value, bool) else str(value)), f"property {prop}"
    for key, name in INGEST_SETTINGS.items():
        value = ingest["settings"][key]
        got = env.get(name, {}).get("value")
        assert got == (None if value is None else str(value)), f"{name} is {got!r}, ingest.settings.{key} {value!r}"
    # The erasure check: the workers' DSN and id key as files of their Secrets, exactly when it is on.
    erasure = ingest["erasureCheck"]
    if erasure["enabled"]:
        postgres = values["store"]["postgres"]
        found = secret_file(env["DVP_ERASURE_STORE_FILE"]["value"], mounts, volumes)
        assert found == (postgres["existingSecret"], postgres["dsnKey"]), f"DVP_ERASURE_STORE_FILE is {found}"
        found = secret_file(env["DVP_ID_KEY_FILE"]["value"], mounts, volumes)
        assert found == (values["idKey"]["existingSecret"], values["idKey"]["key"]), f"DVP_ID_KEY_FILE is {found}"
        refresh = erasure["refreshSeconds"]
        assert env.get("DVP_ERASURE_REFRESH", {}).get("value") == (None if refresh is None else str(refresh))
    else:
        assert not {"DVP_ERASURE_STORE_FILE", "DVP_ID_KEY_FILE", "DVP_ERASURE_REFRESH"} & set(env), "erasure env"
    catalog = env.get("DVP_CATALOG", {}).get("value")
    assert catalog == (f"/etc/daily-values/catalog/{values['worker']['catalog']['key']}"
                       if values["worker"]["catalog"]["configMap"] else None), "not the workers' catalog"
    assert ingest["logLevel"] == env.get("DVP_LOG_LEVEL", {}).get("value", ""), "DVP_LOG_LEVEL"
    services = {o["metadata"]["name"]: o for o in by_kind(gateway, "Service")}
    service = services[deployment["metadata"]["name"]]
    admin = services[deployment["metadata"]["name"] + "-admin"]
    assert service["spec"]["selector"] == selector, "the gateway Service selects other pods"
    assert service["spec"]["ports"] == [{"name": "http", "port": ingest["service"]["port"], "targetPort": "http",
                                         "protocol": "TCP"}], service["spec"]["ports"]
    assert admin["spec"]["selector"] == selector, "the gateway's admin Service selects other pods"
    assert admin["spec"]["type"] == "ClusterIP", "the admin listener must stay inside the cluster"
    assert admin["spec"]["ports"] == [{"name": "admin", "port": admin_port, "targetPort": "admin", "protocol": "TCP"}]
    assert admin["metadata"]["labels"]["dvp.metrics/job"] == service["metadata"]["name"], "the scrape job's name"
    for hpa in by_kind(gateway, "HorizontalPodAutoscaler"):
        scaling = ingest["autoscaling"]
        assert hpa["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
        assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (scaling["minReplicas"], scaling["maxReplicas"])
        metrics = {m["type"]: m for m in hpa["spec"]["metrics"]}
        assert metrics["Resource"]["resource"]["target"]["averageUtilization"] == scaling["targetCPUUtilizationPercentage"]
        if scaling["inFlightRequestsPerPod"]:
            pods = metrics["Pods"]["pods"]
            assert pods["metric"]["name"] == "dvp_ingest_in_flight_requests"
            assert pods["target"]["averageValue"] == str(scaling["inFlightRequestsPerPod"]), pods
        else:
            assert set(metrics) == {"Resource"}, f"HPA metrics {sorted(metrics)}"
    for pdb in by_kind(gateway, "PodDisruptionBudget"):
        assert pdb["spec"]["selector"]["matchLabels"] == selector, "the gateway PDB selects other pods"
        assert pdb["spec"]["maxUnavailable"] == ingest["podDisruptionBudget"]["maxUnavailable"]
    for monitor in by_kind(gateway, "ServiceMonitor"):
        assert monitor["spec"]["selector"]["matchLabels"].items() <= admin["metadata"]["labels"].items()
        assert not monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
        assert monitor["spec"]["endpoints"][0]["port"] == "admin"
        assert monitor["spec"]["jobLabel"] == "dvp.metrics/job"
        assert not monitor["spec"]["selector"]["matchLabels"].items() <= worker["metadata"]["labels"].items()
    for rule in by_kind(workers, "PrometheusRule"):
        (group,) = [g for g in rule["spec"]["groups"] if g["name"] == "daily-values-ingest"]
        job = f'job="{service["metadata"]["name"]}"'
        assert all(job in r["expr"] for r in group["rules"]), "a gateway alert does not select the gateway's job"
    return f"{len(gateway)} objects: {', '.join(kinds)}; grace {grace}"


def check_storectl_cronjob(cronjob: dict[str, Any], values: dict[str, Any], selector: dict[str, str]) -> None:
    """A storectl CronJob (finalize, retention): its command against the DSN Secret, never two at once, locked down
    like the worker's pods, its pods outside the Deployment's selector."""
    component = cronjob["metadata"]["labels"]["app.kubernetes.io/component"]
    config = values[component]
    expected_args, expected_env = {
        "finalize": (["finalize"], {"DVP_SETTLE_HOURS": str(config.get("settleHours"))}),
        "retention": (["retention", "--keep-days", str(config.get("keepDays"))], {}),
    }[component]
    spec = cronjob["spec"]
    assert spec["schedule"] == config["schedule"] and spec["concurrencyPolicy"] == "Forbid", spec
    pod = spec["jobTemplate"]["spec"]["template"]
    assert pod["spec"]["restartPolicy"] == "Never" and pod["spec"]["automountServiceAccountToken"] is False
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
    assert pod["spec"]["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert not (selector.items() <= pod["metadata"]["labels"].items()), f"{component} pods match the Deployment selector"
    (container,) = pod["spec"]["containers"]
    assert container["name"] == component and container["command"] == ["/usr/local/bin/storectl"]
    assert container["args"] == expected_args, container["args"]
    context = container["securityContext"]
    assert context["readOnlyRootFilesystem"] is True and context["capabilities"] == {"drop": ["ALL"]}
    env = {e["name"]: e for e in container["env"]}
    assert env["DVP_STORE"]["valueFrom"]["secretKeyRef"] == {
        "name": values["store"]["postgres"]["existingSecret"],
        "key": values["store"]["postgres"]["dsnKey"],
    }, "DVP_STORE is not the DSN Secret"
    for name, value in expected_env.items():
        assert env[name]["value"] == value, (name, env[name])
    own = {e["name"] for e in config["extraEnv"]}
    assert set(env) == {"DVP_STORE"} | set(expected_env) | own, f"{component} env {sorted(env)}: only its own extraEnv"


# MARK: - Value usage


REDRIVE = {
    "redrive": {"enabled": True, "run": "catalog-fix", "dryRun": False, "errorClasses": ["ValueOutOfRange"],
                "originPartitions": [0, 3], "since": "2026-12-01", "max": 1000, "rate": 50,
                "retentionWatch": {"enabled": True, "pushgateway": "http://pushgateway.monitoring:9091"}},
    "prometheusRule": {"enabled": True},
    "worker": {"catalog": {"configMap": "catalog-fix"}},
}


def check_redrive(chart: Chart) -> str:
    """The redrive Job and the dlq-stats CronJob: `dlq` with the values' filters, the worker's Kafka settings and
    catalog, locked down like the worker's pods, outside the Deployment's selector; a failing exit ends the Job."""
    objects = render_ok(chart, merge(BASE, REDRIVE))
    values = chart.values_with(merge(BASE, REDRIVE))
    (deployment,) = by_kind(objects, "Deployment")
    selector = deployment["spec"]["selector"]["matchLabels"]
    component = {o["metadata"]["labels"]["app.kubernetes.io/component"]: o for o in objects
                 if o["kind"] in ("Job", "CronJob")}
    job, cronjob = component["redrive"], component["dlq-stats"]
    rules = [r["alert"] for o in by_kind(objects, "PrometheusRule") for g in o["spec"]["groups"] for r in g["rules"]]
    assert {"DailyValuesDeadLettersExpiring", "DailyValuesDeadLetterStatsStale"} <= set(rules), rules
    assert job["spec"]["parallelism"] == 1 and job["spec"]["podFailurePolicy"]["rules"][0]["onExitCodes"]["values"] == [1, 2]
    pods = {"redrive": job["spec"]["template"], "dlq-stats": cronjob["spec"]["jobTemplate"]["spec"]["template"]}
    for name, pod in pods.items():
        spec = pod["spec"]
        assert spec["restartPolicy"] == "Never" and spec["automountServiceAccountToken"] is False
        assert spec["securityContext"]["runAsNonRoot"] is True
        (container,) = spec["containers"]
        assert container["name"] == name and container["command"] == ["/usr/local/bin/dlq"]
        context = container["securityContext"]
        assert context["readOnlyRootFilesystem"] is True and context["capabilities"] == {"drop": ["ALL"]}
        env = {e["name"]: e for e in container["env"]}
        for key, entry in env.items():
            if SECRET_ENV.match(key) and not (key == "DVP_ID_KEY_FILE"):
                assert "value" not in entry, f"{name}: {key} carries a literal value"
        assert env["DVP_BROKERS"]["value"] == values["kafka"]["brokers"]
        assert env["DVP_CATALOG"]["value"].startswith("/etc/daily-values/catalog/"), "not the worker's catalog"
        assert not (selector.items() <= pod["metadata"]["labels"].items()), f"{name} pods match the Deployment selector"
    args = pods["redrive"]["spec"]["containers"][0]["args"]
    assert args == ["redrive", "--error-class", "ValueOutOfRange", "--origin-partition", "0", "--origin-partition", "3",
                    "--since", "2026-12-01", "--max", "1000", "--rate", "50", "--max-redrives", "3"], args
    env = {e["name"]: e for e in pods["redrive"]["spec"]["containers"][0]["env"]}
    store = env.get("DVP_STORE_FILE") or env["DVP_STORE"]
    assert ("value" in store or "secretKeyRef" in store["valueFrom"]) and "DVP_ID_KEY_FILE" in env, "the erasure check's store/key"
    unchecked = render_ok(chart, merge(BASE, merge(REDRIVE, {"redrive": {"erasureCheck": False}})))
    (unchecked_job,) = [o for o in by_kind(unchecked, "Job") if o["metadata"]["labels"]["app.kubernetes.io/component"] == "redrive"]
    assert unchecked_job["spec"]["template"]["spec"]["containers"][0]["args"][-1] == "--no-erasure-check"
    stats_args = pods["dlq-stats"]["spec"]["containers"][0]["args"]
    assert stats_args == ["stats", "--retention", "7d", "--pushgateway", "http://pushgateway.monitoring:9091"], stats_args
    return f"{len(objects)} objects; redrive args {len(args)}"


ERASE = {
    "erase": {"enabled": True, "run": "ticket-4711", "reference": "ticket 4711", "dryRun": False,
              "patients": {"existingSecret": "erase-ticket-4711"}, "topicRetentionMs": 604800000},
}


def check_erase(chart: Chart) -> str:
    """The erase Job: `storectl erase` with the patients from their Secret (never a value), the workers' store DSN
    Secret, id key and Kafka connection; locked down like the worker's pods, outside the Deployment's selector; exit 2
    ends the Job, exit 1 (something remains) is retried."""
    objects = render_ok(chart, merge(BASE, ERASE))
    values = chart.values_with(merge(BASE, ERASE))
    (deployment,) = by_kind(objects, "Deployment")
    selector = deployment["spec"]["selector"]["matchLabels"]
    (job,) = [o for o in by_kind(objects, "Job") if o["metadata"]["labels"]["app.kubernetes.io/component"] == "erase"]
    assert job["metadata"]["name"].endswith("-erase-ticket-4711"), job["metadata"]["name"]
    assert job["spec"]["parallelism"] == 1
    assert job["spec"]["podFailurePolicy"]["rules"][0]["onExitCodes"]["values"] == [2]
    pod = job["spec"]["template"]
    spec = pod["spec"]
    assert spec["restartPolicy"] == "Never" and spec["automountServiceAccountToken"] is False
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert not (selector.items() <= pod["metadata"]["labels"].items()), "erase pods match the Deployment selector"
    (container,) = spec["containers"]
    assert container["name"] == "erase" and container["command"] == ["/usr/local/bin/storectl"]
    context = container["securityContext"]
    assert context["readOnlyRootFilesystem"] is True and context["capabilities"] == {"drop": ["ALL"]}
    assert container["args"] == [
        "erase", "--patient-file", "/etc/daily-values/erase/patients", "--reference", "ticket 4711", "--mode", "erase",
        "--topic-retention-ms", "604800000"], container["args"]
    env = {e["name"]: e for e in container["env"]}
    assert env["DVP_STORE"]["valueFrom"]["secretKeyRef"] == {
        "name": values["store"]["postgres"]["existingSecret"], "key": values["store"]["postgres"]["dsnKey"]}
    assert env["DVP_ID_KEY_FILE"]["value"] == f"/etc/daily-values/id-key/{values['idKey']['key']}"
    assert env["DVP_BROKERS"]["value"] == values["kafka"]["brokers"]
    for key, entry in env.items():
        if SECRET_ENV.match(key) and key != "DVP_ID_KEY_FILE":
            assert "value" not in entry, f"erase: {key} carries a literal value"
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert mounts["erase-patients"] == "/etc/daily-values/erase"
    assert volumes["erase-patients"]["secret"]["secretName"] == "erase-ticket-4711"
    assert volumes["id-key"]["secret"]["secretName"] == values["idKey"]["existingSecret"]
    dry = render_ok(chart, merge(BASE, merge(ERASE, {"erase": {"dryRun": True, "topicRetentionMs": 0}})))
    (dry_job,) = [o for o in by_kind(dry, "Job") if o["metadata"]["labels"]["app.kubernetes.io/component"] == "erase"]
    dry_args = dry_job["spec"]["template"]["spec"]["containers"][0]["args"]
    assert dry_args[-1] == "--dry-run" and "--topic-retention-ms" not in dry_args, dry_args
    return f"{len(objects)} objects; erase args {len(container['args'])}"


def value_paths(node: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Leaves of values.yaml: scalars, lists and empty maps (a non-empty map is its children)."""
    if isinstance(node, dict) and node:
        return [p for key, child in node.items() for p in value_paths(child, prefix + (key,))]
    return [prefix]


def check_value_usage(chart: Chart) -> str:
    code = {name: re.sub(r"\{\{-?\s*/\*.*?\*/\s*-?\}\}", "", text, flags=re.S) for name, text in chart.sources.items()}
    referenced = {
        tuple(m.group(1).strip(".").split(".")) for text in code.values() for m in VALUES_REFERENCE.finditer(text)
    }
    for path in sorted(referenced):
        node: Any = chart.values
        for part in path:
            assert isinstance(node, dict) and part in node, f".Values.{'.'.join(path)} is read but not in values.yaml"
            node = node[part]
    leaves = value_paths(chart.values)
    unused = [p for p in leaves if not any(p[: len(r)] == r for r in referenced)]
    assert not unused, f"values.yaml entries no template reads: {['.'.join(p) for p in unused]}"
    return f"{len(referenced)} references, {len(leaves)} values"


# MARK: - Cases

CI = {path.stem: yaml.safe_load(path.read_text()) for path in sorted((CHART / "ci").glob("*-values.yaml"))}
BASE = CI["postgres-values"]
FHIR_URL = "https://fhir.acme-health.test/fhir/R4"
FHIR_TOKEN_URL = "https://login.acme-health.test/oauth2/token"
# The gateway with API keys, the least it needs.
INGEST_API_KEYS = {"ingest": {"enabled": True, "auth": {"apiKeys": {"existingSecret": "daily-values-ingest-api-keys"}}}}


def fhir_store(**settings: Any) -> dict[str, Any]:
    """An override selecting store.type=fhir with FHIR_URL and `settings` under store.fhir."""
    return {"store": {"type": "fhir", "fhir": {"url": FHIR_URL, **settings}}}


# ci/fhir-values.yaml switched from OAuth2 + private CA + mTLS to a bearer token Secret with the system CAs and an HPA.
FHIR_BEARER_TOKEN: dict[str, Any] = merge(
    fhir_store(
        token={"existingSecret": "fhir-bearer-token"},
        oauth={"tokenURL": "", "clientID": "", "existingSecret": "", "scope": ""},
        tls={"existingSecret": "", "caKey": "", "certKey": "", "keyKey": ""},
    ),
    {"autoscaling": {"mode": "hpa"}},
)

# (name, override, expected substring(s) of helm's schema error: the value's path and the rule, or a rule's message)
SCHEMA_VIOLATIONS: list[tuple[str, dict[str, Any], str | tuple[str, ...]]] = [
    ("start outside enum", {"kafka": {"start": "yesterday"}}, "at '/kafka/start': value must be one of"),
    ("zero replicas", {"replicaCount": 0}, "at '/replicaCount': minimum: got 0, want 1"),
    (
        "inline PostgreSQL DSN",
        {"store": {"postgres": {"dsn": "postgres://u:p@db/obs"}}},
        "at '/store/postgres': additional properties 'dsn' not allowed",
    ),
    (
        "secret librdkafka property",
        {"kafka": {"properties": {"sasl.password": "hunter2"}}},
        "invalid propertyName 'sasl.password'",
    ),
    (
        "secret librdkafka property spelled with '_' (ssl_key_pem is ssl.key.pem)",
        {"kafka": {"properties": {"ssl_key_pem": "-----BEGIN PRIVATE KEY-----"}}},
        "invalid propertyName 'ssl_key_pem'",
    ),
    ("ssl_key_password", {"kafka": {"properties": {"ssl_key_password": "x"}}}, "invalid propertyName 'ssl_key_password'"),
    ("sasl_password", {"kafka": {"properties": {"sasl_password": "x"}}}, "invalid propertyName 'sasl_password'"),
    (
        "sasl_oauthbearer_client_secret",
        {"kafka": {"properties": {"sasl_oauthbearer_client_secret": "x"}}},
        "invalid propertyName 'sasl_oauthbearer_client_secret'",
    ),
    (
        "ssl_keystore_password",
        {"kafka": {"properties": {"ssl_keystore_password": "x"}}},
        "invalid propertyName 'ssl_keystore_password'",
    ),
    ("sasl_username", {"kafka": {"properties": {"sasl_username": "x"}}}, "invalid propertyName 'sasl_username'"),
    (
        "chart-owned property spelled with '_' (group_id)",
        {"kafka": {"properties": {"group_id": "other"}}},
        "invalid propertyName 'group_id'",
    ),
    (
        "secret property as a plain value under secretProperties",
        {"kafka": {"secretProperties": {"ssl.key.password": "hunter2"}}},
        "at '/kafka/secretProperties/ssl.key.password': got string, want object",
    ),
    ("image digest that is not sha256", {"image": {"digest": "latest"}}, "at '/image/digest': 'latest' does not match"),
    (
        "network policy probe CIDR that is not a CIDR",
        {"networkPolicy": {"enabled": True, "probeCIDRs": ["nodes"]}},
        "at '/networkPolicy/probeCIDRs/0': 'nodes' does not match pattern",
    ),
    (
        "chart-owned librdkafka property",
        {"kafka": {"properties": {"enable.auto.commit": "true"}}},
        "invalid propertyName 'enable.auto.commit'",
    ),
    (
        "secret env var by value",
        {"extraEnv": [{"name": "DVP_X_SASL_PASSWORD", "value": "x"}]},
        "at '/extraEnv/0': 'not' failed",
    ),
    ("unknown autoscaling mode", {"autoscaling": {"mode": "both"}}, "at '/autoscaling/mode': value must be one of"),
    ("typo in a key", {"worker": {"drainTimeout": 30}}, "additional properties 'drainTimeout' not allowed"),
    ("string where integer", {"kafka": {"partitions": "12"}}, "at '/kafka/partitions': got string, want integer"),
    (
        "grace margin below minimum",
        {"worker": {"terminationGraceMarginSeconds": 4}},
        "at '/worker/terminationGraceMarginSeconds': minimum: got 4, want 5",
    ),
    (
        "drain timeout above the worker's limit",
        {"worker": {"drainTimeoutSeconds": 3601}},
        "at '/worker/drainTimeoutSeconds': maximum: got 3,601, want 3,600",
    ),
    (
        "drain timeout as a string",
        {"worker": {"drainTimeoutSeconds": "30"}},
        "at '/worker/drainTimeoutSeconds': got string, want integer",
    ),
    (
        "drain timeout in extraEnv (the chart passes --drain-timeout)",
        {"extraEnv": [{"name": "DVP_DRAIN_TIMEOUT", "value": "600"}]},
        "at '/extraEnv/0': 'not' failed",
    ),
    ("log level the worker rejects", {"worker": {"logLevel": "critical"}}, "at '/worker/logLevel': value must be one of"),
    (
        "development-key opt-in not a boolean",
        {"idKey": {"allowDevelopmentKey": "yes"}},
        "at '/idKey/allowDevelopmentKey': got string, want boolean",
    ),
    (
        "backfill from latest (would replay nothing)",
        {"backfill": {"start": "latest"}},
        "at '/backfill/start': value must be one of",
    ),
    ("broker list without port", {"kafka": {"brokers": "kafka"}}, "at '/kafka/brokers': 'kafka' does not match pattern"),
    (
        "identifier system that is not a URI",
        {"worker": {"identifierSystem": "daily summaries"}},
        "at '/worker/identifierSystem': 'daily summaries' does not match pattern",
    ),
    (
        "source extension URL that is not a URI",
        {"worker": {"sourceExtensionURL": "hk-source"}},
        "at '/worker/sourceExtensionURL': 'hk-source' does not match pattern",
    ),
    (
        "UID beyond 2^31-1",
        {"podSecurityContext": {"runAsUser": 4294967296}},
        "at '/podSecurityContext/runAsUser': maximum",
    ),
    ("alert rate of zero", {"prometheusRule": {"deadLetterRatePerSecond": 0}}, "at '/prometheusRule/deadLetterRatePerSecond'"),
    (
        "FHIR URL that is not http(s)",
        fhir_store(url="ftp://fhir.test/r4"),
        "at '/store/fhir/url': 'ftp://fhir.test/r4' does not match pattern",
    ),
    (
        "FHIR URL given with the fhir+ prefix (the chart adds it)",
        fhir_store(url="fhir+https://fhir.test/r4"),
        "at '/store/fhir/url': 'fhir+https://fhir.test/r4' does not match pattern",
    ),
    (
        "FHIR URL carrying credentials",
        fhir_store(url="https://dvp:hunter2@fhir.test/r4"),
        "at '/store/fhir/url': 'https://dvp:hunter2@fhir.test/r4' does not match pattern",
    ),
    (
        "inline FHIR bearer token",
        fhir_store(token={"value": "eyJhbGciOi"}),
        "at '/store/fhir/token': additional properties 'value' not allowed",
    ),
    (
        "inline OAuth2 client secret",
        fhir_store(oauth={"clientSecret": "s3cret"}),
        "at '/store/fhir/oauth': additional properties 'clientSecret' not allowed",
    ),
    ("FHIR batch above 500", fhir_store(batchSize=501), "at '/store/fhir/batchSize': maximum: got 501, want 500"),
    ("FHIR Bundles in flight above 16", fhir_store(bundlesInFlight=17),
     "at '/store/fhir/bundlesInFlight': maximum: got 17, want 16"),
    ("unknown store type", {"store": {"type": "mongodb"}}, "at '/store/type': value must be one of"),
    ("finalize settle window above 30 days", {"finalize": {"settleHours": 721}}, "at '/finalize/settleHours': maximum"),
    ("subject reference mode the worker rejects", {"worker": {"subjectReference": "contained"}}, "at '/worker/subjectReference': value must be one of"),
    ("device name opt-in not a boolean", {"worker": {"storeDeviceName": "yes"}}, "at '/worker/storeDeviceName': got string, want boolean"),
    ("retraction mode the worker rejects", {"worker": {"retractionMode": "purge"}}, "at '/worker/retractionMode': value must be one of"),
    ("version-conflict action the worker rejects", {"worker": {"onVersionConflict": "drop"}}, "at '/worker/onVersionConflict': value must be one of"),
    ("finalize schedule that is not cron", {"finalize": {"schedule": "hourly"}}, "at '/finalize/schedule'"),
    ("retention of no days", {"retention": {"keepDays": 0}}, "at '/retention/keepDays': minimum: got 0, want 1"),
    ("retention above 100 years", {"retention": {"keepDays": 36501}}, "at '/retention/keepDays': maximum"),
    ("retention schedule that is not cron", {"retention": {"schedule": "daily"}}, "at '/retention/schedule'"),
    ("redrive retention that dlq rejects", {"redrive": {"retentionWatch": {"retention": "1 week"}}}, "at '/redrive/retentionWatch/retention'"),
    ("redrive alert at 100% of retention", {"redrive": {"retentionWatch": {"alertAtFraction": 1}}}, "at '/redrive/retentionWatch/alertAtFraction'"),
    # Cross-field rules (values.schema.json's allOf entries with a $comment): helm prints "missing property
    # '<message>'", the message naming the values involved.
    ("no brokers", {"kafka": {"brokers": ""}}, "kafka.brokers is required"),
    ("SQLite with two replicas", {"store": {"type": "sqlite"}, "replicaCount": 2}, "store.type=sqlite keeps one file per pod"),
    (
        "SQLite with KEDA",
        {"store": {"type": "sqlite"}, "replicaCount": 1, "autoscaling": {"mode": "keda"}},
        "store.type=sqlite keeps one file per pod",
    ),
    (
        "SQLite with a backfill",
        {"store": {"type": "sqlite"}, "replicaCount": 1, "backfill": {"enabled": True, "group": "bf"}},
        "backfill.enabled needs a shared store",
    ),
    ("backfill without a group", {"backfill": {"enabled": True}}, "backfill.group is required"),
    ("redrive without a run name", {"redrive": {"enabled": True}}, "redrive.run is required when redrive.enabled"),
    (
        "redrive on SQLite with the erasure check",
        {"store": {"type": "sqlite"}, "replicaCount": 1, "redrive": {"enabled": True, "run": "r"}},
        "redrive.erasureCheck needs a shared store",
    ),
    ("erase without a run name", {"erase": {"enabled": True}}, "erase.run is required when erase.enabled"),
    (
        "erase without a reference",
        {"erase": {"enabled": True, "run": "r", "patients": {"existingSecret": "p"}}},
        "erase.reference is required when erase.enabled",
    ),
    (
        "erase without the patients' Secret",
        {"erase": {"enabled": True, "run": "r", "reference": "t"}},
        "erase.patients.existingSecret is required when erase.enabled",
    ),
    (
        "erase on SQLite",
        {"store": {"type": "sqlite"}, "erase": {"enabled": True, "run": "r", "reference": "t", "patients": {"existingSecret": "p"}}},
        "erase.enabled needs store.type=postgres",
    ),
    ("erase mode storectl rejects", {"erase": {"mode": "purge"}}, "at '/erase/mode': value must be one of"),
    (
        "gateway erasure check on SQLite",
        {"store": {"type": "sqlite"}, "replicaCount": 1, "ingest": {"erasureCheck": {"enabled": True}}},
        "ingest.erasureCheck.enabled needs store.type=postgres",
    ),
    (
        "gateway erasure refresh below 0.1 s",
        {"ingest": {"erasureCheck": {"refreshSeconds": 0.01}}},
        "at '/ingest/erasureCheck/refreshSeconds': minimum",
    ),
    (
        "retention watch without a Pushgateway",
        {"redrive": {"retentionWatch": {"enabled": True}}},
        "redrive.retentionWatch.enabled needs redrive.retentionWatch.pushgateway",
    ),
    ("SASL without a Secret", {"kafka": {"sasl": {"enabled": True}}}, "kafka.sasl.enabled needs kafka.sasl.existingSecret"),
    (
        "client cert without key",
        {"kafka": {"tls": {"enabled": True, "existingSecret": "t", "certKey": "tls.crt"}}},
        "kafka.tls.certKey and kafka.tls.keyKey must be set together",
    ),
    (
        "client cert and key without their Secret",
        {"kafka": {"tls": {"enabled": True, "certKey": "tls.crt", "keyKey": "tls.key"}}},
        "kafka.tls.certKey/keyKey need kafka.tls.existingSecret",
    ),
    ("no DSN Secret", {"store": {"postgres": {"existingSecret": ""}}}, "store.postgres.existingSecret is required"),
    (
        "no id key Secret and no development-key opt-in",
        {"idKey": {"existingSecret": ""}},
        "idKey.existingSecret is required",
    ),
    # No example-domain (or any) default for the FHIR systems: each deployment names its own.
    ("no identifier system", {"worker": {"identifierSystem": ""}}, "worker.identifierSystem is required"),
    ("no source extension URL", {"worker": {"sourceExtensionURL": ""}}, "worker.sourceExtensionURL is required"),
    (
        "logical subject reference without a patient identifier system",
        {"worker": {"subjectReference": "logical"}},
        "worker.subjectReference=logical needs worker.patientIdentifierSystem",
    ),
    (
        "patient identifier system with the default (literal) subject reference (the worker would exit 2)",
        {"worker": {"patientIdentifierSystem": "https://hospital.test/patients"}},
        "worker.patientIdentifierSystem is only used with worker.subjectReference=logical",
    ),
    (
        "patient identifier system with subjectReference literal",
        {"worker": {"subjectReference": "literal", "patientIdentifierSystem": "https://hospital.test/patients"}},
        "worker.patientIdentifierSystem is only used with worker.subjectReference=logical",
    ),
    ("FHIR store without a URL", {"store": {"type": "fhir"}}, "store.fhir.url is required for store.type=fhir"),
    (
        "FHIR bearer token and OAuth2 together",
        fhir_store(
            token={"existingSecret": "t"},
            oauth={"tokenURL": FHIR_TOKEN_URL, "clientID": "d", "existingSecret": "o"},
        ),
        "store.fhir.token.existingSecret and store.fhir.oauth exclude each other",
    ),
    (
        "OAuth2 without client id and secret",
        fhir_store(oauth={"tokenURL": FHIR_TOKEN_URL}),
        ("store.fhir.oauth needs tokenURL, clientID and existingSecret together (scope is optional); missing: clientID",
         "missing: existingSecret (the client secret)"),
    ),
    ("OAuth2 without a token URL", fhir_store(oauth={"clientID": "d", "existingSecret": "o"}), "missing: tokenURL"),
    (
        "OAuth2 scope alone",
        fhir_store(oauth={"scope": "system/*.write"}),
        ("missing: tokenURL", "missing: clientID", "missing: existingSecret (the client secret)"),
    ),
    (
        "FHIR client cert without key",
        fhir_store(tls={"existingSecret": "t", "certKey": "tls.crt"}),
        "store.fhir.tls.certKey and store.fhir.tls.keyKey must be set together",
    ),
    ("FHIR CA key without a Secret", fhir_store(tls={"caKey": "ca.crt"}), "need store.fhir.tls.existingSecret"),
    (
        "FHIR TLS Secret without a key to use",
        fhir_store(tls={"existingSecret": "t"}),
        "store.fhir.tls.existingSecret needs store.fhir.tls.caKey",
    ),
    (
        "FHIR TLS material for an http URL",
        fhir_store(url="http://fhir.local:8080/fhir", tls={"existingSecret": "t", "caKey": "ca.crt"}),
        "store.fhir.tls applies to an https:// store.fhir.url only",
    ),
    # The gateway.
    ("gateway without a credential", {"ingest": {"enabled": True}},
     "ingest.enabled needs ingest.auth.apiKeys.existingSecret and/or ingest.auth.jwt.existingSecret"),
    ("gateway without authentication, not acknowledged", {"ingest": {"enabled": True, "auth": {"insecureNoAuth": True}}},
     "set ingest.auth.acknowledgeInsecureNoAuth=true as well"),
    (
        "gateway without authentication beside API keys",
        merge(INGEST_API_KEYS, {"ingest": {"auth": {"insecureNoAuth": True, "acknowledgeInsecureNoAuth": True}}}),
        "ingest.auth.insecureNoAuth excludes ingest.auth.apiKeys and ingest.auth.jwt",
    ),
    ("gateway JWKS without audience and issuer", {"ingest": {"enabled": True, "auth": {"jwt": {"existingSecret": "j"}}}},
     "ingest.auth.jwt.existingSecret needs ingest.auth.jwt.audience and ingest.auth.jwt.issuer"),
    ("gateway JWT audience without a JWKS", merge(INGEST_API_KEYS, {"ingest": {"auth": {"jwt": {"audience": "a"}}}}),
     "ingest.auth.jwt.audience/issuer need ingest.auth.jwt.existingSecret"),
    ("gateway JWT lifetime without a JWKS",
     merge(INGEST_API_KEYS, {"ingest": {"auth": {"jwt": {"maxLifetimeSeconds": 3600}}}}),
     "ingest.auth.jwt.maxLifetimeSeconds needs ingest.auth.jwt.existingSecret"),
    ("gateway API key file inline", merge(INGEST_API_KEYS, {"ingest": {"auth": {"apiKeys": {"value": "sha256:ab"}}}}),
     "at '/ingest/auth/apiKeys': additional properties 'value' not allowed"),
    ("gateway producer with acks", merge(INGEST_API_KEYS, {"ingest": {"kafkaProperties": {"acks": "1"}}}),
     "invalid propertyName 'acks'"),
    ("gateway producer without idempotence",
     merge(INGEST_API_KEYS, {"ingest": {"kafkaProperties": {"enable_idempotence": False}}}),
     "invalid propertyName 'enable_idempotence'"),
    ("gateway secret librdkafka property", merge(INGEST_API_KEYS, {"ingest": {"kafkaProperties": {"sasl.password": "x"}}}),
     "invalid propertyName 'sasl.password'"),
    ("gateway no-auth through extraEnv",
     merge(INGEST_API_KEYS, {"ingest": {"extraEnv": [{"name": "DVP_INSECURE_NO_AUTH", "value": "1"}]}}),
     "at '/ingest/extraEnv/0'"),
    ("gateway secret env var by value",
     merge(INGEST_API_KEYS, {"ingest": {"extraEnv": [{"name": "DVP_X_SASL_PASSWORD", "value": "x"}]}}),
     "at '/ingest/extraEnv/0'"),
    ("gateway records per request of 0", merge(INGEST_API_KEYS, {"ingest": {"settings": {"maxRecords": 0}}}),
     "at '/ingest/settings/maxRecords': minimum: got 0, want 1"),
    ("gateway body limit without the bound on bytes in flight",
     merge(INGEST_API_KEYS, {"ingest": {"settings": {"maxBodyBytes": 1073741824}}}),
     "ingest.settings.maxBodyBytes and ingest.settings.maxInFlightBytes must be set together"),
    ("gateway tenant share without its bound",
     merge(INGEST_API_KEYS, {"ingest": {"settings": {"maxTenantRequests": 8}}}),
     "at '/ingest/settings/maxConcurrentRequests'"),
    ("gateway tenant bytes without the bounds on bytes",
     merge(INGEST_API_KEYS, {"ingest": {"settings": {"maxTenantInFlightBytes": 8388608}}}),
     "at '/ingest/settings/maxInFlightBytes'"),
    ("gateway head timeout of 0", merge(INGEST_API_KEYS, {"ingest": {"settings": {"headTimeoutSeconds": 0}}}),
     "at '/ingest/settings/headTimeoutSeconds': minimum: got 0, want 1"),
    ("gateway body limit below 1 KiB",
     merge(INGEST_API_KEYS, {"ingest": {"settings": {"maxBodyBytes": 1000, "maxInFlightBytes": 4096}}}),
     "at '/ingest/settings/maxBodyBytes': minimum"),
    ("gateway drain timeout above its limit", merge(INGEST_API_KEYS, {"ingest": {"drainTimeoutSeconds": 3601}}),
     "at '/ingest/drainTimeoutSeconds': maximum"),
    ("gateway grace margin below minimum", merge(INGEST_API_KEYS, {"ingest": {"terminationGraceMarginSeconds": 4}}),
     "at '/ingest/terminationGraceMarginSeconds': minimum: got 4, want 5"),
    ("gateway log level it rejects", merge(INGEST_API_KEYS, {"ingest": {"logLevel": "critical"}}),
     "at '/ingest/logLevel': value must be one of"),
    ("gateway 5xx alert ratio above 1", {"prometheusRule": {"ingest": {"serverErrorRatio": 2}}},
     "at '/prometheusRule/ingest/serverErrorRatio': maximum"),
    (
        "finalize with SQLite",
        {"store": {"type": "sqlite"}, "replicaCount": 1, "finalize": {"enabled": True}},
        "finalize.enabled needs store.type=postgres: storectl finalize cannot reach a SQLite file",
    ),
    (
        "finalize with a FHIR store",
        fhir_store() | {"finalize": {"enabled": True}},
        "the FHIR store does not support finalize yet",
    ),
    (
        "retention with SQLite",
        {"store": {"type": "sqlite"}, "replicaCount": 1, "retention": {"enabled": True}},
        "retention.enabled needs store.type=postgres: storectl retention drops PostgreSQL partitions",
    ),
    (
        "retention with a FHIR store",
        fhir_store() | {"retention": {"enabled": True}},
        "retention.enabled needs store.type=postgres",
    ),
]

# (name, override on top of the minimal postgres values, expected substring of the template failure). Only rules
# JSON Schema cannot express stay in the templates (dvw.validate): each compares two values.
RENDER_FAILURES: list[tuple[str, dict[str, Any], str]] = [
    (
        "KEDA max above partitions",
        {"autoscaling": {"mode": "keda", "keda": {"maxReplicaCount": 13}}},
        "exceeds kafka.partitions=12",
    ),
    (
        "HPA max above partitions",
        {"autoscaling": {"mode": "hpa", "hpa": {"maxReplicas": 20}}},
        "exceeds kafka.partitions=12",
    ),
    ("replicas above partitions", {"replicaCount": 13}, "exceeds kafka.partitions=12"),
    (
        "KEDA min above max",
        {"autoscaling": {"mode": "keda", "keda": {"minReplicaCount": 5, "maxReplicaCount": 4}}},
        "minReplicaCount must not exceed",
    ),
    (
        "HPA min above max",
        {"autoscaling": {"mode": "hpa", "hpa": {"minReplicas": 5, "maxReplicas": 4}}},
        "autoscaling.hpa.minReplicas must not exceed autoscaling.hpa.maxReplicas",
    ),
    (
        "backfill into the live group",
        {"backfill": {"enabled": True, "group": "daily-values-worker"}},
        "must differ from kafka.group",
    ),
    (
        "a secret property both plain and from a Secret",
        {"kafka": {"properties": {"client.id": "x"}, "secretProperties": {"client.id": {"existingSecret": "s", "key": "k"}}}},
        "kafka.secretProperties.client.id is also in kafka.properties",
    ),
    (
        "gateway HPA min above max",
        merge(INGEST_API_KEYS, {"ingest": {"autoscaling": {"minReplicas": 5, "maxReplicas": 4}}}),
        "ingest.autoscaling.minReplicas must not exceed ingest.autoscaling.maxReplicas",
    ),
    (
        "gateway bytes in flight below one request's body",
        merge(INGEST_API_KEYS, {"ingest": {"settings": {"maxBodyBytes": 8388608, "maxInFlightBytes": 4194304}}}),
        "ingest.settings.maxInFlightBytes must be at least ingest.settings.maxBodyBytes",
    ),
    (
        "gateway tenant share above its bound",
        merge(INGEST_API_KEYS, {"ingest": {"settings": {"maxConcurrentRequests": 8, "maxTenantRequests": 9}}}),
        "ingest.settings.maxTenantRequests must not exceed ingest.settings.maxConcurrentRequests",
    ),
    (
        "gateway tenant bytes below one request's body",
        merge(INGEST_API_KEYS, {"ingest": {"settings": {
            "maxBodyBytes": 8388608, "maxInFlightBytes": 67108864, "maxTenantInFlightBytes": 4194304}}}),
        "ingest.settings.maxTenantInFlightBytes must be between ingest.settings.maxBodyBytes and",
    ),
    (
        "gateway admin port on the public port",
        merge(INGEST_API_KEYS, {"ingest": {"adminPort": 8080}}),
        "ingest.adminPort must differ from ingest.httpPort",
    ),
    (
        "gateway producer property also a secret property",
        merge(INGEST_API_KEYS, {"ingest": {"kafkaProperties": {"client.id": "g"}},
                                "kafka": {"secretProperties": {"client.id": {"existingSecret": "s", "key": "k"}}}}),
        "ingest.kafkaProperties.client.id is also in kafka.secretProperties",
    ),
]

# Every integer the chart renders, far above 999999 where the schema allows it: YAML gives templates float64s, which
# print as 1e+06 unless the template converts them (dvw.number / int64). (path, value)
LARGE_NUMBERS: list[tuple[str, Any]] = [
    ("podSecurityContext.runAsUser", 1000000),
    ("podSecurityContext.runAsGroup", 2000000),
    ("podSecurityContext.fsGroup", 2147483647),
    ("backfill.activeDeadlineSeconds", 12000000),
    ("backfill.ttlSecondsAfterFinished", 31536000),
    ("finalize.activeDeadlineSeconds", 12000000),
    ("finalize.startingDeadlineSeconds", 3000000),
    ("retention.activeDeadlineSeconds", 12000000),
    ("retention.startingDeadlineSeconds", 3000000),
    ("autoscaling.keda.lagThreshold", 5000000),
    ("autoscaling.keda.activationLagThreshold", 1000000),
    ("autoscaling.keda.pollingInterval", 1000000),
    ("autoscaling.keda.cooldownPeriod", 1000000),
    ("probes.startup.failureThreshold", 1000000),
    ("worker.batchSize", 100000),
    ("kafka.properties.fetch.max.bytes", 52428800),
    ("kafka.properties.queued.max.messages.kbytes", 2097151),
    ("store.sqlite.sizeLimit", 10000000000),
    ("resources.limits.memory", 2147483648),
    ("prometheusRule.lagThreshold", 25000000),
]

# The gateway beside ci/postgres-values.yaml (prometheusRule on: its alert group is checked too).
INGEST_SCENARIOS: dict[str, dict[str, Any]] = {
    "API keys, defaults": merge(INGEST_API_KEYS, {"prometheusRule": {"enabled": True}}),
    "JWT only, fixed replicas, no PDB, producer tuning": {
        "ingest": {"enabled": True, "replicaCount": 3, "autoscaling": {"enabled": False},
                   "podDisruptionBudget": {"enabled": False}, "kafkaProperties": {"linger.ms": 5, "enable.gzip": True},
                   "auth": {"jwt": {"existingSecret": "ingest-jwks", "key": "keys.json",
                                    "audience": "https://ingest.acme-health.test", "issuer": "https://idp.test/",
                                    "maxLifetimeSeconds": 2592000}}},
        "kafka": {"properties": {"fetch.max.bytes": 52428800}},
        "prometheusRule": {"enabled": True},
    },
    # Every setting at its schema maximum (the largest integers the chart renders: never 1e+12).
    "every setting at its maximum": merge(INGEST_API_KEYS, {"prometheusRule": {"enabled": True}, "ingest": {"settings": {
        "maxRecords": 1000000, "maxBodyBytes": 1073741824, "maxConcurrentRequests": 65536,
        "maxInFlightBytes": 1099511627776, "requestTimeoutSeconds": 600, "idempotencyTTLSeconds": 2592000,
        "idempotencyMaxKeys": 10000000, "idempotencyMaxRecords": 1000000000, "threads": 64, "maxConnections": 65536,
        "maxConnectionsPerAddress": 65536}}}),
}
# (drain, preStop sleep, margin) at the schema's corners.
INGEST_DEADLINES = [(1, 0, 5), (30, 5, 10), (3600, 120, 600)]


def check_insecure_gateway(chart: Chart) -> str:
    override = merge(BASE, {"ingest": {"enabled": True, "auth": {"insecureNoAuth": True, "acknowledgeInsecureNoAuth": True}}})
    detail = check_scenario(chart, override, {"Deployment", "Service", "ServiceAccount", "PodDisruptionBudget"})
    notes = helmchart.notes(override)
    assert "WARNING ingest.auth.insecureNoAuth=true" in notes, "NOTES.txt does not warn about the gateway without auth"
    return detail


# Shutdown deadline at the schema's corners, with the backfill Job rendered too (Deployment + Job = 2 pod specs).
WITH_JOB = {"backfill": {"enabled": True, "group": "backfill-deadline"}}
DEADLINES = [(1, 5), (30, 15), (45, 5), (3600, 600)]


def expect_schema_valid(chart: Chart, values: dict[str, Any]) -> str:
    errors = [e.message for e in jsonschema.Draft7Validator(chart.schema).iter_errors(values)]
    assert not errors, f"schema errors: {errors}"
    return "valid"


def expect_helm_failure(override: dict[str, Any], fragments: str | tuple[str, ...], schema: bool) -> str:
    """helm template fails with every fragment in its message: a schema violation, or a `fail` rule."""
    fragments = (fragments,) if isinstance(fragments, str) else fragments
    try:
        helmchart.template(override)
    except HelmFailure as failure:
        message = str(failure)
        assert (SCHEMA_FAILURE in message) == schema, f"expected a {'schema' if schema else 'template'} failure: {message}"
        for fragment in fragments:
            assert fragment in message, f"failed with {message!r}, expected {fragment!r}"
        return message.splitlines()[-1]
    raise AssertionError(f"rendered although it should fail with {fragments!r}")


# What every deployment must give: values.yaml alone fails the schema with exactly these rule messages.
MUST_GIVE = (
    "kafka.brokers is required",
    "store.postgres.existingSecret is required",
    "idKey.existingSecret is required",
    "worker.identifierSystem is required",
    "worker.sourceExtensionURL is required",
)


def check_defaults_must_give(chart: Chart) -> str:
    """values.yaml is valid but for the values each deployment must give (Python's draft-07 validator, as helm)."""
    errors = [e.message for e in jsonschema.Draft7Validator(chart.schema).iter_errors(chart.values)]
    unexpected = [e for e in errors if not any(m in e for m in MUST_GIVE)]
    assert not unexpected, f"values.yaml breaks other rules: {unexpected}"
    missing = [m for m in MUST_GIVE if not any(m in e for e in errors)]
    assert not missing, f"values.yaml passes rules it should fail: {missing}"
    return f"{len(errors)} errors, each a value to give"


def check_no_example_urls() -> str:
    """No example-domain URL can become a silent default: values.yaml carries none (the FHIR systems are required)."""
    found = re.findall(r"https?://[^\s\"]*example\.(?:org|com|net)[^\s\"]*", (CHART / "values.yaml").read_text())
    assert not found, f"values.yaml carries example-domain URLs: {found}"
    return "none"


def helm_lint(override: dict[str, Any] | None) -> str:
    output = helmchart.helm("lint", "--strict", values=override)
    assert "0 chart(s) failed" in output and "[WARNING]" not in output, output
    return output.strip().splitlines()[-1]


def dotted(path: str, value: Any) -> dict[str, Any]:
    """{"a": {"b": value}} from "a.b" (librdkafka property names keep their dots under kafka.properties)."""
    head, _, rest = path.partition(".")
    if head == "properties":
        return {head: {rest: value}}
    return {head: dotted(rest, value) if rest else value}


def check_large_numbers(chart: Chart) -> str:
    """Every LARGE_NUMBERS value comes out of helm as the same integer (never 1e+06 or a float)."""
    override = merge(
        BASE,
        {"autoscaling": {"mode": "keda"}, "backfill": {"enabled": True, "group": "bf"}, "prometheusRule": {"enabled": True},
         "finalize": {"enabled": True}, "retention": {"enabled": True}},
    )
    for path, value in LARGE_NUMBERS:
        override = merge(override, dotted(path, value))
    objects = render_ok(chart, override)
    text = yaml.safe_dump([{k: v for k, v in o.items() if k != "_template"} for o in objects])
    assert not re.search(r"[0-9]e\+[0-9]", text), f"exponent notation: {re.findall(r'.*[0-9]e[+][0-9].*', text)}"
    (deployment,) = by_kind(objects, "Deployment")
    (job,) = by_kind(objects, "Job")
    (scaled,) = by_kind(objects, "ScaledObject")
    (rule,) = by_kind(objects, "PrometheusRule")
    cronjobs = {c["metadata"]["labels"]["app.kubernetes.io/component"]: c for c in by_kind(objects, "CronJob")}
    cronjob, retention = cronjobs["finalize"], cronjobs["retention"]
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    env = {e["name"]: e.get("value") for e in container["env"]}
    rendered = {
        "podSecurityContext.runAsUser": pod["securityContext"]["runAsUser"],
        "podSecurityContext.runAsGroup": pod["securityContext"]["runAsGroup"],
        "podSecurityContext.fsGroup": pod["securityContext"]["fsGroup"],
        "backfill.activeDeadlineSeconds": job["spec"]["activeDeadlineSeconds"],
        "backfill.ttlSecondsAfterFinished": job["spec"]["ttlSecondsAfterFinished"],
        "finalize.activeDeadlineSeconds": cronjob["spec"]["jobTemplate"]["spec"]["activeDeadlineSeconds"],
        "finalize.startingDeadlineSeconds": cronjob["spec"]["startingDeadlineSeconds"],
        "retention.activeDeadlineSeconds": retention["spec"]["jobTemplate"]["spec"]["activeDeadlineSeconds"],
        "retention.startingDeadlineSeconds": retention["spec"]["startingDeadlineSeconds"],
        "autoscaling.keda.lagThreshold": scaled["spec"]["triggers"][0]["metadata"]["lagThreshold"],
        "autoscaling.keda.activationLagThreshold": scaled["spec"]["triggers"][0]["metadata"]["activationLagThreshold"],
        "autoscaling.keda.pollingInterval": scaled["spec"]["pollingInterval"],
        "autoscaling.keda.cooldownPeriod": scaled["spec"]["cooldownPeriod"],
        "probes.startup.failureThreshold": container["startupProbe"]["failureThreshold"],
        "worker.batchSize": env["DVP_BATCH_SIZE"],
        "kafka.properties.fetch.max.bytes": env["DVP_X_FETCH_MAX_BYTES"],
        "kafka.properties.queued.max.messages.kbytes": env["DVP_X_QUEUED_MAX_MESSAGES_KBYTES"],
        "store.sqlite.sizeLimit": None,  # only with store.type=sqlite: checked below
        "resources.limits.memory": container["resources"]["limits"]["memory"],
        "prometheusRule.lagThreshold": re.search(r"> ([0-9.e+]+)", rule["spec"]["groups"][0]["rules"][0]["expr"])[1],
    }
    sqlite = render_ok(chart, merge(override, {"store": {"type": "sqlite"}, "replicaCount": 1,
                                               "autoscaling": {"mode": "none"}, "backfill": {"enabled": False},
                                               "finalize": {"enabled": False}, "retention": {"enabled": False}}))
    (sqlite_deployment,) = by_kind(sqlite, "Deployment")
    volumes = {v["name"]: v for v in sqlite_deployment["spec"]["template"]["spec"]["volumes"]}
    rendered["store.sqlite.sizeLimit"] = volumes["sqlite"]["emptyDir"]["sizeLimit"]
    for path, value in LARGE_NUMBERS:
        got = rendered[path]
        assert str(got) == str(value) and not isinstance(got, float), f"{path}: {value} rendered as {got!r}"
    return f"{len(LARGE_NUMBERS)} values rendered exactly"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="print details of passing checks")
    parser.add_argument("--bin-dir", help="the built binaries, for their option tables (default $DVP_BIN_DIR)")
    arguments = parser.parse_args()
    check = Check(arguments.verbose)
    started = time.monotonic()
    chart = Chart(CHART)

    check.run(
        "values.schema.json is a valid draft-07 schema", lambda: jsonschema.Draft7Validator.check_schema(chart.schema)
    )
    check.run("values.yaml fails values.schema.json only for the values to give", lambda: check_defaults_must_give(chart))
    for name, values in CI.items():
        check.run(
            f"values.yaml + ci/{name}.yaml satisfies values.schema.json (Python draft-07)",
            lambda v=values: expect_schema_valid(chart, chart.values_with(v)),
        )
    check.run("every .Values read exists; every value is read", lambda: check_value_usage(chart))
    check.run(
        "options/*.json is what worker and ingest print with --print-options-json (no secret's default)",
        lambda: chartoptions.check_current(chartoptions.bin_dir_from(arguments.bin_dir)),
    )
    check.run(
        "values.yaml defaults and values.schema.json types, enums and bounds agree with the binaries' options",
        chartoptions.check_chart,
    )
    check.run("the options comparison reports each kind of disagreement", chartoptions.check_mutations)
    check.run(
        "defaults alone fail the schema with every value to give",
        lambda: expect_helm_failure({}, MUST_GIVE, schema=True),
    )
    check.run("values.yaml holds no example-domain URL", check_no_example_urls)
    monitoring = {"prometheusRule": {"enabled": True}, "grafanaDashboard": {"enabled": True}}
    for name, values in [*CI.items(), ("postgres-values + prometheusRule + grafanaDashboard", merge(BASE, monitoring))]:
        check.run(f"helm lint --strict ({name})", lambda v=values: helm_lint(v))

    base_kinds = {"Deployment", "Service", "ServiceAccount", "PodDisruptionBudget"}
    scenarios = {
        "postgres-values": base_kinds,
        "sqlite-values": base_kinds,
        "hpa-values": {"Deployment", "Service", "HorizontalPodAutoscaler"},
        "keda-sasl-tls-values": base_kinds | {"ScaledObject", "TriggerAuthentication", "ServiceMonitor", "Job", "CronJob"},
        "fhir-values": base_kinds | {"ScaledObject", "Job"},
        "ingest-values": base_kinds | {"ServiceMonitor", "PrometheusRule"},
    }
    assert set(scenarios) == set(CI), f"ci/ files {sorted(CI)} differ from the scenarios {sorted(scenarios)}"
    for name, kinds in scenarios.items():
        check.run(f"render ci/{name}.yaml", lambda name=name, kinds=kinds: check_scenario(chart, CI[name], kinds))
    check.run(
        "render ci/postgres-values.yaml + prometheusRule + grafanaDashboard",
        lambda: check_scenario(chart, merge(BASE, monitoring), base_kinds | {"PrometheusRule", "ConfigMap"}),
    )
    fhir_token = merge(CI["fhir-values"], FHIR_BEARER_TOKEN)
    check.run(
        "render ci/fhir-values.yaml with a bearer token Secret instead of OAuth2, system CAs, HPA",
        lambda: check_scenario(chart, fhir_token, {"Deployment", "Service", "ServiceAccount", "PodDisruptionBudget",
                                                    "HorizontalPodAutoscaler", "Job"}),
    )
    check.run("helm lint --strict (fhir-values with a bearer token)", lambda: helm_lint(fhir_token))
    fhir_defaults = merge(CI["fhir-values"], {"store": {"fhir": {"batchSize": None, "bundlesInFlight": None,
                                                                       "connectTimeoutSeconds": None}}})
    check.run(
        "render ci/fhir-values.yaml with batchSize, bundlesInFlight and connectTimeoutSeconds null (not passed: the "
        "worker's defaults)",
        lambda: check_scenario(chart, fhir_defaults, scenarios["fhir-values"]),
    )
    check.run(
        "NOTES.txt renders for every ci/ file",
        lambda: str(sum(len(helmchart.notes(v)) > 0 for v in CI.values())) + " rendered",
    )
    check.run(
        "render ci/postgres-values.yaml + worker.storeDeviceName (DVP_STORE_DEVICE_NAME=true)",
        lambda: check_scenario(chart, merge(BASE, {"worker": {"storeDeviceName": True}}), base_kinds),
    )
    check.run("large integers render exactly (no 1e+06)", lambda: check_large_numbers(chart))
    check.run("render redrive Job + dlq-stats CronJob + dead-letter rules", lambda: check_redrive(chart))
    check.run("helm lint --strict (redrive + retention watch)", lambda: helm_lint(merge(BASE, REDRIVE)))
    check.run("render the erase Job (storectl erase)", lambda: check_erase(chart))
    check.run("helm lint --strict (erase Job)", lambda: helm_lint(merge(BASE, ERASE)))
    files_off = {"store": {"postgres": {"mountAsFile": False}}, "kafka": {"sasl": {"mountPasswordAsFile": False}}}
    check.run(
        "render ci/keda-sasl-tls-values.yaml with the DSN and SASL password as env vars (mountAsFile false)",
        lambda: check_scenario(chart, merge(CI["keda-sasl-tls-values"], files_off), scenarios["keda-sasl-tls-values"]),
    )
    secret_properties = {"kafka": {"secretProperties": {
        "ssl.key.password": {"existingSecret": "kafka-client", "key": "key-password"},
        "sasl.oauthbearer.client.secret": {"existingSecret": "kafka-oauth", "key": "client-secret"},
    }}}
    check.run(
        "render ci/postgres-values.yaml + kafka.secretProperties (files, DVP_XFILE_*)",
        lambda: check_scenario(chart, merge(BASE, secret_properties), base_kinds),
    )
    digest = "sha256:" + "ab" * 32
    check.run(
        "render ci/postgres-values.yaml + image.digest (repository@sha256:…)",
        lambda: check_scenario(chart, merge(BASE, {"image": {"digest": digest, "tag": "0.1.0"}}), base_kinds),
    )
    check.run("NetworkPolicy off by default", lambda: check_network_policy(chart, BASE))
    policies = {
        "Prometheus and probe CIDRs, egress open": {
            "metricsFrom": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}},
                             "podSelector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}}}],
            "probeCIDRs": ["10.0.0.0/16", "fd00::/64"],
        },
        "no peers (deny all ingress), egress restricted to DNS": {
            "egress": [{"ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]}],
        },
    }
    for name, policy in policies.items():
        override = merge(BASE, {"networkPolicy": {"enabled": True, **policy}})
        check.run(f"NetworkPolicy: {name}", lambda o=override: check_network_policy(chart, o))
        check.run(
            f"render ci/postgres-values.yaml + NetworkPolicy ({name})",
            lambda o=override: check_scenario(chart, o, base_kinds | {"NetworkPolicy"}),
        )

    for name, override in INGEST_SCENARIOS.items():
        check.run(f"render the gateway: {name}",
                  lambda o=merge(BASE, override): check_scenario(chart, o, base_kinds | {"PrometheusRule"}))
        check.run(f"helm lint --strict (gateway: {name})", lambda o=merge(BASE, override): helm_lint(o))
    check.run(
        "render the gateway with ci/keda-sasl-tls-values.yaml (SASL password as an env var, consumer properties)",
        lambda: check_scenario(chart, merge(CI["keda-sasl-tls-values"], merge(files_off, INGEST_API_KEYS)),
                               scenarios["keda-sasl-tls-values"]),
    )
    check.run("gateway with insecureNoAuth acknowledged: --insecure-no-auth, NOTES warn",
              lambda: check_insecure_gateway(chart))
    for drain, sleep, margin in INGEST_DEADLINES:
        override = merge(INGEST_API_KEYS, {"ingest": {"drainTimeoutSeconds": drain, "preStopSleepSeconds": sleep,
                                                      "terminationGraceMarginSeconds": margin}})
        check.run(
            f"gateway pod: grace = preStop {sleep} + --drain-timeout {drain} + margin {margin}",
            lambda o=merge(BASE, override): check_scenario(chart, o, base_kinds),
        )

    for drain, margin in DEADLINES:
        override = merge(WITH_JOB, {"worker": {"drainTimeoutSeconds": drain, "terminationGraceMarginSeconds": margin}})
        check.run(
            f"every pod spec: grace >= --drain-timeout + {MINIMUM_GRACE_MARGIN} (drain {drain}, margin {margin})",
            lambda o=merge(BASE, override): check_every_pod_deadline(chart, o, 2),
        )
    development = {"idKey": {"existingSecret": "", "allowDevelopmentKey": True}}
    check.run(
        "no id key Secret + idKey.allowDevelopmentKey: --allow-development-key, no key volume, NOTES warn",
        lambda: check_development_key(chart, merge(BASE, development)),
    )
    check.run(
        "id key Secret + idKey.allowDevelopmentKey: the Secret wins, no --allow-development-key",
        lambda: check_scenario(
            chart,
            merge(BASE, {"idKey": {"allowDevelopmentKey": True}}),
            {"Deployment", "Service", "ServiceAccount", "PodDisruptionBudget"},
        ),
    )

    for name, override, fragment in SCHEMA_VIOLATIONS:
        check.run(
            f"schema rejects: {name}",
            lambda o=override, f=fragment: expect_helm_failure(merge(BASE, o), f, schema=True),
        )
    for name, override, fragment in RENDER_FAILURES:
        check.run(
            f"template fails: {name}",
            lambda o=override, f=fragment: expect_helm_failure(merge(BASE, o), f, schema=False),
        )

    print(f"\nrejections: {len(SCHEMA_VIOLATIONS)} schema, {len(RENDER_FAILURES)} template")
    print(f"{check.passed} passed, {len(check.failures)} failed in {time.monotonic() - started:.2f}s")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
