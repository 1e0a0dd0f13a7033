#!/usr/bin/env python3
"""docs/ARCHITECTURE.md against Package.swift: every target is named in the document, and the
modules table gives each library and executable target exactly the targets it depends on.

Reads the package through `swift package dump-package` (or a file saved from it: --package FILE).
The table's "depends on" cell may also name outside products (GRDB, SwiftNIO…); only the names of
the package's own targets are compared. Exit 1 with one line per difference."""
import argparse, json, re, subprocess, sys

def target_deps(t, names):
    out = set()
    for dep in t.get("dependencies", []):
        for kind in ("byName", "target"):
            if kind in dep and dep[kind][0] in names:
                out.add(dep[kind][0])
    return out

def table_rows(text):
    """The modules table: {target name: set of words in its 'depends on' cell}."""
    rows = {}
    section = text.split("## Modules", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not line.startswith("|") or set(cells[0]) <= set("- "):
            continue
        words = set(re.findall(r"[A-Za-z][A-Za-z0-9_-]*", cells[1]))
        for name in re.findall(r"`([^`]+)`", cells[0]):
            rows[name] = words
    return rows

def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--package", help="a file of `swift package dump-package`'s output")
    ap.add_argument("--doc", default="docs/ARCHITECTURE.md")
    a = ap.parse_args()
    dump = open(a.package).read() if a.package else subprocess.run(
        ["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout
    targets = json.loads(dump)["targets"]
    names = {t["name"] for t in targets}
    text = open(a.doc).read()
    rows = table_rows(text)
    problems = []
    for t in targets:
        name = t["name"]
        if not re.search(r"(?<![A-Za-z0-9_-])" + re.escape(name) + r"(?![A-Za-z0-9_-])", text):
            problems.append(f"{a.doc}: target {name} ({t['type']}) is not named")
        if t["type"] in ("regular", "executable", "system") and not name.startswith("fuzz-"):
            if name not in rows:
                problems.append(f"{a.doc}: the modules table has no row for target {name}")
                continue
            want = target_deps(t, names)
            got = rows[name] & names
            if want != got:
                missing, extra = sorted(want - got), sorted(got - want)
                problems.append(f"{a.doc}: {name} depends on {', '.join(sorted(want)) or 'nothing'} in Package.swift"
                                + (f"; the table lacks {', '.join(missing)}" if missing else "")
                                + (f"; the table adds {', '.join(extra)}" if extra else ""))
    for name in sorted(set(rows) - names):
        problems.append(f"{a.doc}: the modules table names {name}, which Package.swift does not have")
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} difference(s): make docs/ARCHITECTURE.md's modules table say what Package.swift says", file=sys.stderr)
        sys.exit(1)
    print(f"{a.doc}: {len(targets)} targets named, {len(rows)} table rows match Package.swift")

if __name__ == "__main__":
    main()
