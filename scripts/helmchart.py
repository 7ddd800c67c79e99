"""Renders charts/daily-values-worker with the real helm (installed by scripts/install-k8s-tools.sh).

Shared by scripts/check-chart.py and scripts/check-monitoring.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
CHART = ROOT / "charts" / "daily-values-worker"
RELEASE, NAMESPACE = "dvp", "ingest"
SOURCE = re.compile(r"^# Source: [^/]+/templates/(\S+)\s*$", re.M)


def helm_binary() -> str:
    """DVP_HELM, else .tools/bin/helm; fails with what to run when neither exists."""
    helm = os.environ.get("DVP_HELM") or str(ROOT / ".tools" / "bin" / "helm")
    if not Path(helm).is_file():
        raise SystemExit(f"no helm at {helm}: run scripts/install-k8s-tools.sh (or set DVP_HELM)")
    return helm


class HelmFailure(Exception):
    """helm exited non-zero; the message is its stderr."""


def helm(*arguments: str, values: dict[str, Any] | None = None) -> str:
    """Runs `helm ARGUMENTS… CHART -n ingest [-f values]` and returns stdout; raises HelmFailure on failure."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as file:
        extra: list[str] = []
        if values is not None:
            yaml.safe_dump(values, file)
            file.flush()
            extra = ["-f", file.name]
        result = subprocess.run(
            [helm_binary(), *arguments, str(CHART), "-n", NAMESPACE, *extra], capture_output=True, text=True
        )
    if result.returncode != 0:
        raise HelmFailure(result.stderr.strip())
    return result.stdout


def template(values: dict[str, Any] | None) -> list[tuple[str, str]]:
    """`helm template` → (template file name, rendered document) for every document helm printed."""
    output = helm("template", RELEASE, values=values)
    parts = SOURCE.split(output)
    return [(parts[i], parts[i + 1]) for i in range(1, len(parts), 2)]


def notes(values: dict[str, Any] | None) -> str:
    """NOTES.txt as `helm install --dry-run=client` prints it."""
    output = helm("install", RELEASE, "--dry-run=client", values=values)
    return output.split("\nNOTES:\n", 1)[1] if "\nNOTES:\n" in output else ""


def objects(values: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Every rendered Kubernetes object, each tagged with its template file under `_template`."""
    found = []
    for name, text in template(values):
        for document in yaml.safe_load_all(text):
            if document is not None:
                document["_template"] = name
                found.append(document)
    return found
