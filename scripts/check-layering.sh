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
if problems:
    print(f"check-layering: {problems} import(s) break the layering")
    sys.exit(1)
print(f"check-layering: {checked} targets, every import declared and allowed")
PY
links=0
python3 scripts/check-doc-links.py || links=$?
(( layering == 0 && links == 0 ))
