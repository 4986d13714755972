#!/usr/bin/env bash
# The module layering of docs/design.md ("Modules"), checked against the sources: every
# `import` of one of the package's own modules in a library or executable target must be a
# dependency that Package.swift declares for that target (SwiftPM lets a target import what its dependencies depend on,
# which would let a layer reach past the one below it unseen), and the packet core and the
# SDK must not reach the modules the design keeps from them. Then every relative link in the
# repository's markdown must resolve (scripts/check-doc-links.py). Exits 1 and names each
# file; both checks run even if the first fails.
#   scripts/check-layering.sh
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
swift package dump-package > /tmp/sluice-package.$$.json
trap 'rm -f /tmp/sluice-package.$$.json' EXIT
layering=0
python3 - /tmp/sluice-package.$$.json <<'PY' || layering=$?
import json, os, re, sys

package = json.load(open(sys.argv[1]))
targets = {t["name"]: t for t in package["targets"]}
# What the design keeps from a module even if Package.swift said otherwise.
forbidden = {
    "SluiceMedia": {"SluiceSDP", "SluiceControl", "SluiceSignaling", "SluiceServer", "SluiceJSON",
                    "SluiceJSONParser", "CJansson", "CWebsockets"},
    "SluiceTransport": {"SluiceMedia", "SluiceControl", "SluiceSDP", "SluiceSignaling", "SluiceServer"},
    "SluiceClient": {"SluiceMedia", "SluiceControl", "SluiceSignaling", "SluiceServer", "SluiceJSONParser",
                     "CJansson", "CWebsockets", "SluiceTestMedia"},
    # The cluster registry knows Redis and JSON only: the server hands it figures and claims.
    "SluiceCluster": {"SluiceMedia", "SluiceControl", "SluiceSignaling", "SluiceServer", "SluiceTransport",
                      "SluiceSDP", "CWebsockets"},
    # The recorder reassembles and writes frames; it knows no session, no protocol word, no socket.
    "SluiceRecord": {"SluiceControl", "SluiceSignaling", "SluiceServer", "SluiceSDP", "SluiceJSON",
                     "SluiceJSONParser", "SluiceCluster", "CWebsockets", "CJansson"},
    # The call state machine is pure: no socket, no JSON, no database, no media.
    "SluiceCalls": set(targets) - {"SluiceVocabulary"},
    # The call log knows SQLite, PostgreSQL's client and the record types, nothing of sessions
    # or the wire.
    "SluiceCallLog": set(targets) - {"SluiceCalls", "CSQLite", "CLibPQ", "SluiceVocabulary"},
    "SluiceVocabulary": set(targets),
    "SluiceWire": set(targets),
}
import_line = re.compile(r"^\s*(?:@testable\s+|@_exported\s+)?import\s+(?:(?:struct|enum|class|func)\s+)?(\w+)", re.M)

def declared(target):
    names = set()
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names

def source_dir(target):
    if target.get("path"):
        return target["path"]
    base = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(base, target["name"])

problems = 0
for name, target in sorted(targets.items()):
    if target["type"] in ("system", "test"):
        continue
    allowed = declared(target)
    root = source_dir(target)
    for folder, _, files in os.walk(root):
        for file in files:
            if not file.endswith(".swift"):
                continue
            path = os.path.join(folder, file)
            for module in import_line.findall(open(path).read()):
                if module not in targets or module == name:
                    continue
                if module not in allowed:
                    print(f"check-layering: {path} imports {module}, which {name} does not declare in Package.swift")
                    problems += 1
                if module in forbidden.get(name, set()):
                    print(f"check-layering: {path} imports {module}, which docs/design.md keeps from {name}")
                    problems += 1
checked = sum(1 for t in targets.values() if t["type"] not in ("system", "test"))

# docs/design.md's "## Modules" table, `| module | holds | imports (Package.swift) |`, against
# Package.swift. The first cell names one target or several (`COpenSSL`, `CSRTP`, ...); the
# third lists their dependencies in short form ("Wire" for SluiceWire, "CShims" as it is;
# "nothing", "libc only" or empty for none; parenthetical remarks such as "(Linux)" are
# dropped). A row of several targets lists what the group imports from outside itself: the
# union of their dependencies less the row's own targets. Every library and executable
# target needs a row; a system library may have one.
def drop_remarks(text):
    while True:
        shorter = re.sub(r"\([^()]*\)", "", text)
        if shorter == text:
            return text
        text = shorter

def target_name(short):
    for name in (short, "Sluice" + short):
        if name in targets:
            return name
    return None

design_path = "docs/design.md"
design_lines = open(design_path).read().split("\n")
rows, in_modules, in_table = [], False, False
for number, line in enumerate(design_lines, 1):
    if line.startswith("## "):
        in_modules = line.strip() == "## Modules"
        continue
    if not in_modules:
        continue
    if line.startswith("|"):
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if not in_table:
            in_table = True
            if [c.lower() for c in cells[:1] + cells[2:3]] != ["module", "imports (package.swift)"]:
                print(f"check-layering: {design_path}:{number}: the Modules table's header is not "
                      f"| module | holds | imports (Package.swift) |")
                problems += 1
            continue
        if set(line.replace("|", "").strip()) <= set("-: "):
            continue
        rows.append((number, cells))
    elif in_table:
        break
if not rows:
    print(f"check-layering: {design_path} has no \"## Modules\" table to check")
    problems += 1
documented = {}
for number, cells in rows:
    where = f"{design_path}:{number}"
    if len(cells) != 3:
        print(f"check-layering: {where}: a Modules row with {len(cells)} cells, not 3")
        problems += 1
        continue
    names = re.findall(r"`([^`]+)`", drop_remarks(cells[0]))
    unknown = [n for n in names if n not in targets]
    for n in unknown:
        print(f"check-layering: {where}: docs/design.md names module {n}, which Package.swift does not declare")
        problems += 1
    names = [n for n in names if n in targets]
    if not names:
        continue
    for n in names:
        if n in documented:
            print(f"check-layering: {where}: {n} has a second row (the first at line {documented[n]})")
            problems += 1
        documented[n] = number
    said, imports = set(), drop_remarks(cells[2]).replace("`", "").strip()
    if imports.lower() not in ("", "nothing", "libc only"):
        for short in (part.strip() for part in imports.split(",")):
            if not short:
                continue
            name = target_name(short)
            if name is None:
                print(f"check-layering: {where}: docs/design.md says {', '.join(names)} imports {short}, "
                      f"which is no module of Package.swift")
                problems += 1
            else:
                said.add(name)
    actual = set().union(*(declared(targets[n]) for n in names)) - set(names)
    if said != actual:
        who = ", ".join(names)
        print(f"check-layering: docs/design.md says {who} imports {', '.join(sorted(said)) or 'nothing'}; "
              f"Package.swift declares {', '.join(sorted(actual)) or 'nothing'} "
              f"(missing from the table: {', '.join(sorted(actual - said)) or 'none'}; "
              f"not in Package.swift: {', '.join(sorted(said - actual)) or 'none'}) [{where}]")
        problems += 1
for name, target in sorted(targets.items()):
    if target["type"] not in ("system", "test") and name not in documented:
        print(f"check-layering: {name} (Package.swift) has no row in {design_path}'s Modules table")
        problems += 1

if problems:
    print(f"check-layering: {problems} problem(s): imports that break the layering, or a "
          f"{design_path} Modules row that differs from Package.swift")
    sys.exit(1)
print(f"check-layering: {checked} targets, every import declared and allowed; "
      f"{design_path}'s Modules table matches Package.swift ({len(documented)} modules)")
PY
links=0
python3 scripts/check-doc-links.py || links=$?
(( layering == 0 && links == 0 ))
