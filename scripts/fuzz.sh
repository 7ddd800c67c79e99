#!/usr/bin/env bash
# Builds the libFuzzer target fuzz/DailyValueFuzz.swift (ObservationMapping compiled with -sanitize=fuzzer,address)
# and runs it on the seed corpus fuzz/corpus/. Everything it writes goes to fuzz/out/ (gitignored); the SwiftPM
# .build directory is not touched.
#
# Usage: scripts/fuzz.sh [--runs N | --seconds S] [--jobs J] [--build-only] [-- extra libFuzzer flags]
#   default      --runs 100000 (a quick CI run)
#   --runs N     stop after N inputs          --seconds S   stop after S seconds
#   --build-only build the binary and exit    --jobs J      run J fuzzing processes (libFuzzer -fork)
# New interesting inputs are kept in fuzz/out/corpus/ (merge worthy ones into fuzz/corpus/ by hand), crash, leak
# and timeout reproducers in fuzz/out/artifacts/. Reproduce one:
#   SWIFT_BACKTRACE=enable=no fuzz/out/dailyvalue-fuzz fuzz/out/artifacts/<file>
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

runs=100000
seconds=0
build_only=0
jobs=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --seconds) seconds=$2; runs=-1; shift 2 ;;
        --build-only) build_only=1; shift ;;
        --jobs) jobs=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "usage: scripts/fuzz.sh [--runs N | --seconds S] [--jobs J] [--build-only] [-- libFuzzer flags]" >&2
           exit 2 ;;
    esac
done

out="$root/fuzz/out"
build="$out/build"
binary="$out/dailyvalue-fuzz"
mkdir -p "$build" "$out/corpus" "$out/artifacts"

# MARK: - Build (skipped when the binary is newer than every input)

# shellcheck disable=SC2054  # the comma belongs to -sanitize=fuzzer,address
swift_flags=(
    -swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility
    -O -g -sanitize=fuzzer,address
)
# ObservationMapping and the package's targets it depends on, in dependency order, read from Package.swift (so a new
# dependency needs no edit here): the Swift modules, then the C modules with their pkg-config names.
mapfile -t closure < <(swift package dump-package | python3 -c '
import json, sys
targets = {t["name"]: t for t in json.load(sys.stdin)["targets"]}
def deps(name):
    return [v[0] for d in targets[name]["dependencies"] for v in d.values() if isinstance(v, list) and v and isinstance(v[0], str)]
order = []
def visit(name):
    if name in order: return
    for dep in deps(name): visit(dep)
    order.append(name)
visit("ObservationMapping")
for name in order:
    target = targets[name]
    print(("system " + name + " " + (target.get("pkgConfig") or "")) if target["type"] == "system" else ("swift " + name))
')
modules=() c_includes=() pkgs=()
for line in "${closure[@]}"; do
    read -r kind name pkg <<<"$line"
    if [[ $kind == swift ]]; then
        modules+=("$name")
    else
        c_includes+=(-I "Sources/$name")
        [[ -n $pkg ]] && pkgs+=("$pkg")
    fi
done
sources=()
for module in "${modules[@]}"; do
    while IFS= read -r file; do sources+=("$file"); done < <(find "Sources/$module" -name '*.swift' | sort)
done
# The C modules' headers and libraries, as SwiftPM finds them through pkg-config.
read -r -a c_flags <<<"$(pkg-config --cflags "${pkgs[@]}" | sed 's/-I/-Xcc -I/g')"
read -r -a c_libs <<<"$(pkg-config --libs "${pkgs[@]}")"
c_modules=("${c_includes[@]}" "${c_flags[@]}")
if [[ ! -x "$binary" ]] || [[ -n $(find "${sources[@]}" fuzz/DailyValueFuzz.swift scripts/fuzz.sh -newer "$binary") ]]
then
    echo "==> building $binary (${modules[*]})" >&2
    # Each module as a static library with coverage instrumentation, like SwiftPM would build it (one package name,
    # so that `package` declarations are visible across the modules).
    module_libs=()
    for module in "${modules[@]}"; do
        module_sources=()
        while IFS= read -r file; do module_sources+=("$file"); done < <(find "Sources/$module" -name '*.swift' | sort)
        swiftc "${swift_flags[@]}" -parse-as-library -wmo -module-name "$module" -package-name dvp \
            -I "$build" "${c_modules[@]}" -emit-library -static -o "$build/lib$module.a" \
            -emit-module -emit-module-path "$build/$module.swiftmodule" \
            "${module_sources[@]}"
        module_libs=(-l"$module" "${module_libs[@]}")
    done
    # The target, linked with libFuzzer's main.
    swiftc "${swift_flags[@]}" -parse-as-library -module-name DailyValueFuzz -package-name dvp \
        -I "$build" "${c_modules[@]}" -L "$build" "${module_libs[@]}" "${c_libs[@]}" \
        -use-ld=lld -o "$binary" fuzz/DailyValueFuzz.swift
fi
[[ $build_only == 1 ]] && exit 0

# MARK: - Run

# -max_len above the 64 KiB payload limit so the size check is exercised; -timeout catches hangs (a decode takes
# microseconds); -rss_limit_mb catches unbounded growth (e.g. a cache); leaks are checked after each input.
flags=(
    -max_len=70000 -timeout=5 -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1
    -dict=fuzz/dailyvalue.dict -artifact_prefix="$out/artifacts/"
)
if [[ $runs -ge 0 ]]; then flags+=(-runs="$runs"); else flags+=(-max_total_time="$seconds"); fi
if [[ $jobs -gt 0 ]]; then flags+=(-fork="$jobs"); fi

# Swift's own backtracer cannot read memory under ASan; libFuzzer prints the (symbolized) stack instead.
export SWIFT_BACKTRACE=enable=no
echo "==> $binary ${flags[*]} $* fuzz/out/corpus fuzz/corpus" >&2
start=$(date +%s)
"$binary" "${flags[@]}" "$@" "$out/corpus" fuzz/corpus
echo "==> finished in $(($(date +%s) - start)) s" >&2
