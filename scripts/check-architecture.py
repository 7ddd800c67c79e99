#!/usr/bin/env python3
"""check-architecture.py — holds docs/ARCHITECTURE.md to the code it describes.

Checks, each failure printed with the line of the document:
  1. every file it names (`Name.swift`) exists under Sources/ or Tests/;
  2. every type, target or `Type.member` it names in backticks is declared in Sources/ or Tests/ (a type as
     struct/class/enum/protocol/actor/typealias, a member as func/var/let/case/init in a file of that type);
  3. every thread or queue name it cites (`kafka-consumer-poll`, `dvp.signals`, …) is a string in Sources/;
  4. every "schema N" it states is the PostgreSQL store's current schema version (its count of migrations);
  5. the layer table: for each target row, the targets in "may import" are exactly the target's dependencies in
     Package.swift (`swift package dump-package`), C modules included;
  6. every `import` of every Swift file in Sources/ and Tests/ names a direct dependency of its target (or a module
     of the toolchain): a module reached only transitively builds by luck of the build order, and hides a layer.
Usage: scripts/check-architecture.py [--doc docs/ARCHITECTURE.md]
Exit status: 0 when every claim holds, 1 otherwise.
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Words in backticks that are not names of the code (flags, values, SQL, protocol words).
IGNORED = {"GET", "HEAD", "BEGIN", "IMMEDIATE", "DVP_CRASH_AT", "POST", "PUT", "If-Match"}
# Targets built for the tests only (Tests/): not layers of the product.
TEST_ONLY = {"TestSupport", "dvp-test-tools", "dvp-fault-worker"}
# Types of the Swift toolchain the document may name.
TOOLCHAIN_TYPES = {"Mutex", "Duration", "DispatchQueue", "Task", "AsyncStream", "Thread"}


def swift_files():
    for folder in ("Sources", "Tests"):
        yield from (ROOT / folder).rglob("*.swift")


def declarations():
    """Type names declared anywhere, and for each type the text of the files that declare or extend it."""
    types, texts = set(), {}
    decl = re.compile(
        r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|final|indirect)\s+)*"
        r"(struct|class|enum|protocol|actor|typealias|extension)\s+([A-Za-z_][\w.]*)",
        re.M,
    )
    for path in swift_files():
        text = path.read_text()
        for kind, name in decl.findall(text):
            last = name.split(".")[-1]
            if kind != "extension":
                types.add(last)
            texts.setdefault(last, []).append(text)
    return types, texts


def has_member(texts, type_name, member):
    pattern = re.compile(
        rf"(func|var|let|case|static func|static let|static var|init)\s+{re.escape(member)}\b|\bcase\s+{re.escape(member)}\b"
    )
    return any(pattern.search(text) for text in texts.get(type_name, []))


TOOLCHAIN_MODULES = {
    "Foundation", "FoundationEssentials", "Glibc", "Darwin", "Dispatch", "Synchronization", "Testing", "XCTest",
    "_Concurrency", "Musl",
}


def package_targets():
    """Each target's dependencies, kind (regular, executable, system, test) and folder."""
    dump = json.loads(subprocess.check_output(["swift", "package", "dump-package"], cwd=ROOT, text=True))
    deps, kinds, folders = {}, {}, {}
    for target in dump["targets"]:
        names = set()
        for dependency in target["dependencies"]:
            for value in dependency.values():
                if isinstance(value, list) and value and isinstance(value[0], str):
                    names.add(value[0])
        deps[target["name"]] = names
        kinds[target["name"]] = target["type"]
        default = ("Tests/" if target["type"] == "test" else "Sources/") + target["name"]
        folders[target["name"]] = target.get("path") or default
    return deps, kinds, folders


def import_failures(deps, folders):
    """Imports of modules that are not a direct dependency of the importing file's target."""
    failures = []
    for target, folder in folders.items():
        for path in sorted((ROOT / folder).rglob("*.swift")):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                # At the top level or in a `#if canImport` block (4 spaces); a module path ends the line.
                match = re.match(
                    r"(?: {4})?(?:@testable )?import (?:(?:struct|class|enum|protocol|func|var|let) )?(\w+)(?:\.\w+)*$",
                    line,
                )
                if not match or match.group(1) in TOOLCHAIN_MODULES or match.group(1) == target:
                    continue
                if match.group(1) not in deps[target]:
                    relative = path.relative_to(ROOT)
                    failures.append(f"{relative}:{number}: imports {match.group(1)}, not a dependency of {target}")
    return failures


def schema_version():
    text = (ROOT / "Sources/PostgresStore/PostgresSchema.swift").read_text()
    # Each migration of the array is introduced by its number: `// 8: population scale …`.
    return max(int(n) for n in re.findall(r"^        // (\d+):", text, re.M))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--doc", default="docs/ARCHITECTURE.md")
    args = parser.parse_args()
    doc = (ROOT / args.doc).read_text().splitlines()
    types, texts = declarations()
    deps, kinds, folders = package_targets()
    targets = set(deps)
    executables = set(re.findall(r'name: "([\w-]+)"', (ROOT / "Package.swift").read_text()))
    files = {path.name for path in swift_files()}
    sources_text = "\n".join(path.read_text() for path in (ROOT / "Sources").rglob("*.swift"))
    version = schema_version()
    failures = []
    cited = 0
    rowed = set()

    def fail(number, message):
        failures.append(f"{args.doc}:{number}: {message}")

    for number, line in enumerate(doc, 1):
        for match in re.finditer(r"schema (\d+)\b", line):
            if int(match.group(1)) != version:
                fail(number, f"says schema {match.group(1)}; the PostgreSQL store is at schema {version}")
        for span in re.findall(r"`([^`]+)`", line):
            for word in re.findall(r"[A-Za-z_][\w.+/-]*", span) if " " in span else [span]:
                word = word.rstrip(".,;:")
                if word.endswith(".swift"):
                    cited += 1
                    if pathlib.PurePath(word).name not in files:
                        fail(number, f"no file {word}")
                elif re.fullmatch(r"(kafka|dvp)[-.][\w.-]+", word) and not word.endswith("/"):
                    cited += 1
                    # A numbered name (`dvp.http-client.N`) is made from its prefix; an executable is a target.
                    literal = word[:-1] if word.endswith(".N") else word
                    if f'"{literal}' not in sources_text and word not in executables:
                        fail(number, f"no thread or queue named {word}")
                elif re.fullmatch(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)?", word) and word not in IGNORED:
                    cited += 1
                    name, _, member = word.partition(".")
                    if name not in types and name not in targets and name not in TOOLCHAIN_TYPES:
                        fail(number, f"no type or target {name}")
                    elif member and name in types and not has_member(texts, name, member):
                        fail(number, f"{name} has no member {member}")
        # The layer table: | `Target`, `Other` (…) | may import … | never |; a row's "may import" lists every
        # dependency of its targets (all of them for a row of several) and nothing else.
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("| ") else []
        if len(cells) == 3:
            rows = [t for t in re.findall(r"`(\w+)`", cells[0].split("(")[0]) if t in targets]
            rowed.update(re.findall(r"`(\w+)`", cells[0]))
            if cells[0].startswith(("executables", "inside")):
                continue  # each executable imports its library and what it wires: listed, not compared
            allowed = {t for t in re.findall(r"`(\w+)`", cells[1]) if t in targets}
            # A row of several targets names the union of their dependencies.
            union = set().union(*(deps[target] for target in rows)) if rows else allowed
            missing, extra = sorted(union - allowed), sorted(allowed - union)
            if missing or extra:
                fail(
                    number,
                    f"layer row {', '.join(rows)}: Package.swift's dependencies differ"
                    + (f"; not in the row: {', '.join(missing)}" if missing else "")
                    + (f"; in the row but not a dependency: {', '.join(extra)}" if extra else ""),
                )
    shipped = {t for t, kind in kinds.items() if kind in ("regular", "executable", "system")}
    for target in sorted(shipped - rowed - TEST_ONLY):
        failures.append(f"{args.doc}: the layer table has no row for the target {target}")
    failures += import_failures(deps, folders)
    for failure in failures:
        print(failure)
    print(f"check-architecture: {cited} names checked, {len(failures)} wrong", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
