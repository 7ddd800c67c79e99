#!/usr/bin/env bash
# Creates (or refreshes) the project's test-only Python environment in .venv from scripts/requirements-test.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
req="$root/scripts/requirements-test.txt"
stamp="$root/.venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [[ -x "$root/.venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then exit 0; fi
python3 -m venv "$root/.venv"
"$root/.venv/bin/pip" install -q --disable-pip-version-check -r "$req" >&2
echo "$want" > "$stamp"
