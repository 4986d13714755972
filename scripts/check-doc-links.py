#!/usr/bin/env python3
"""Every relative link in the repository's markdown resolves.

Checks README.md, every docs/*.md, and every other *.md that git tracks (outside .build,
.venv, artifacts, Fuzz/.build and node_modules): each inline link `[text](path)`,
`[text](path#anchor)` and `[text](#anchor)` outside code. The path must exist, relative to
the linking file; an anchor must name a heading of the target markdown file, by GitHub's
rules (lowercased; punctuation other than `-` and `_` dropped; spaces become `-`; a repeated
slug gets `-1`, `-2`, ...), or an `<a name=...>`/`<a id=...>` in it. Links with a scheme
(http:, https:, mailto:, ...) are not checked. Prints each broken link as file:line and
exits 1; otherwise prints one line with the counts.

    python3 scripts/check-doc-links.py
"""
import os
import re
import subprocess
import sys
import unicodedata
from urllib.parse import unquote

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIPPED_DIRS = (".build", ".venv", "artifacts", "Fuzz/.build", "node_modules")

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
ATX_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SETEXT_UNDERLINE = re.compile(r"^\s{0,3}(=+|-+)\s*$")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
# [text](target) or ![alt](target); the text may hold one level of brackets.
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*(<[^>]*>|[^\s)]*)(?:\s+\"[^\"]*\"|\s+'[^']*')?\s*\)")
HTML_ANCHOR = re.compile(r"<a\s+(?:[^>]*\s)?(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.I)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def skipped(relative):
    return any(relative == d or relative.startswith(d + "/") for d in SKIPPED_DIRS)


def markdown_files():
    files = set()
    if os.path.exists(os.path.join(REPO, "README.md")):
        files.add("README.md")
    docs = os.path.join(REPO, "docs")
    if os.path.isdir(docs):
        files.update("docs/" + name for name in os.listdir(docs) if name.endswith(".md"))
    try:
        tracked = subprocess.run(["git", "-C", REPO, "ls-files", "-z", "--", "*.md"],
                                 check=True, capture_output=True).stdout.decode().split("\0")
        files.update(name for name in tracked if name)
    except (OSError, subprocess.CalledProcessError):
        for folder, dirs, names in os.walk(REPO):
            relative_folder = os.path.relpath(folder, REPO)
            dirs[:] = [d for d in dirs if not d.startswith(".git") and
                       not skipped(os.path.normpath(os.path.join(relative_folder, d)))]
            files.update(os.path.normpath(os.path.join(relative_folder, n)) for n in names if n.endswith(".md"))
    return sorted(f for f in files if not skipped(f) and os.path.isfile(os.path.join(REPO, f)))


def prose_lines(text):
    """(line number, line) for each line outside fenced code blocks, inline code blanked."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        match = FENCE.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        yield number, INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


def slug(heading):
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text)                                             # inline HTML
    text = text.strip().lower()
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if char in "-_ " or category[0] in "LN" or category == "Mn":
            kept.append(char)
    return "".join(kept).replace(" ", "-")


anchor_cache = {}


def anchors(path):
    if path in anchor_cache:
        return anchor_cache[path]
    text = open(path, encoding="utf-8").read()
    found, counts = set(), {}
    previous = None
    for number, line in prose_lines(text):
        heading = None
        match = ATX_HEADING.match(line)
        if match:
            heading = match.group(2)
        elif previous is not None and previous.strip() and SETEXT_UNDERLINE.match(line) \
                and not ATX_HEADING.match(previous) and not previous.lstrip().startswith(("-", "*", "|", ">")):
            heading = previous
        if heading is not None:
            base = slug(heading)
            count = counts.get(base, 0)
            counts[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        for name in HTML_ANCHOR.findall(line):
            found.add(name)
        previous = line
    anchor_cache[path] = found
    return found


def main():
    files = markdown_files()
    links = broken = 0
    for relative in files:
        path = os.path.join(REPO, relative)
        text = open(path, encoding="utf-8").read()
        for number, line in prose_lines(text):
            for match in LINK.finditer(line):
                target = match.group(2).strip("<>")
                if not target or SCHEME.match(target) or target.startswith("//"):
                    continue
                links += 1
                file_part, _, anchor = target.partition("#")
                file_part = unquote(file_part)
                if file_part:
                    if file_part.startswith("/"):
                        resolved = os.path.normpath(os.path.join(REPO, file_part.lstrip("/")))
                    else:
                        resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                    if not os.path.exists(resolved):
                        print(f"{relative}:{number}: [{match.group(1)}]({target}): no such file "
                              f"{os.path.relpath(resolved, REPO)}")
                        broken += 1
                        continue
                else:
                    resolved = path
                if anchor and resolved.endswith(".md") and os.path.isfile(resolved):
                    if unquote(anchor) not in anchors(resolved):
                        print(f"{relative}:{number}: [{match.group(1)}]({target}): no heading "
                              f"#{anchor} in {os.path.relpath(resolved, REPO)}")
                        broken += 1
    if broken:
        print(f"check-doc-links: {broken} broken link(s) of {links} in {len(files)} markdown files")
        return 1
    print(f"check-doc-links: {links} relative links in {len(files)} markdown files, all resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
