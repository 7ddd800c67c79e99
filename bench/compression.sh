#!/usr/bin/env bash
# Measures the codecs a stored document could be compressed with (docs/STORAGE.md): the mapper's Observations of a
# generated population that the shipped dictionary was not trained on (100 patients x 14 days, seed 99: the held-out
# set of scripts/train-document-dictionary.sh), one document at a time, in-process (bench/compression.c).
# Writes bench/REPORT-compression.md; scratch in bench/out/compression/ (gitignored).
#
#   bench/compression.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out/compression
rm -rf "$OUT" && mkdir -p "$OUT"
cd "$ROOT"
swift build -c release --product producer >/dev/null
swift build -c release --product dvp-test-tools >/dev/null
bin=$(swift build -c release --show-bin-path)
"$bin/producer" generate --patients 100 --days 14 --seed 99 --start-day 2026-09-01 --out "$OUT/events.ndjson" >/dev/null
"$bin/dvp-test-tools" document-samples --events "$OUT/events.ndjson" --out "$OUT/samples" >/dev/null
python3 - "$ROOT/Sources/DocumentCompression/DocumentDictionary+Builtin.swift" "$OUT/dictionary" <<'PY'
import base64, re, sys
text = open(sys.argv[1]).read()
body = re.search(r'builtinText = """\n(.*?)"""', text, re.S).group(1)
data = "".join(line.strip().rstrip("\\") for line in body.splitlines())
open(sys.argv[2], "wb").write(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
PY
cc -O2 -Wall -o "$OUT/compression" "$ROOT/bench/compression.c" -llz4 -lzstd
table=$("$OUT/compression" "$OUT/samples" "$OUT/dictionary")
{
    echo "# Stored-document codecs"
    echo
    echo "\`bench/compression.sh\` on $(date -u +%Y-%m-%d), $(nproc) cores, zstd $(pkg-config --modversion libzstd)," \
        "lz4 $(pkg-config --modversion liblz4); the shipped dictionary (id" \
        "$(sed -n 's/.*builtinID: UInt32 = \([0-9]*\).*/\1/p' Sources/DocumentCompression/DocumentDictionary+Builtin.swift)," \
        "$(wc -c <"$OUT/dictionary") bytes) on documents it was not trained on. CPU is process CPU time per document," \
        "one document at a time, as the worker compresses them."
    echo
    echo "$table"
} >"$ROOT/bench/REPORT-compression.md"
cat "$ROOT/bench/REPORT-compression.md"
