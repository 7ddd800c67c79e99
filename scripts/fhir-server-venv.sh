#!/usr/bin/env bash
# Creates (or refreshes) .venv-fhir, the venv of the sekmet-fhir test server, from scripts/requirements-fhir-server.txt;
# prints the path of its `sekmet` executable.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
req="$root/scripts/requirements-fhir-server.txt"
venv="$root/.venv-fhir"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if ! [[ -x "$venv/bin/sekmet" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req" >&2
    echo "$want" > "$stamp"
fi
echo "$venv/bin/sekmet"
