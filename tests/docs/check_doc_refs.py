#!/usr/bin/env python3
"""Every pointer into the documentation names a section that is there.

The sources, scripts and documents point at sections as `docs/training.md, "Compute time"`
(a file, then the start of a heading or of a paragraph's bold lead), and the documents point
within themselves as `"Roots write in turn" below`. A section renamed or moved leaves such a
pointer dangling, or looking the wrong way; this check finds it. Pointers wrapped over lines, in comments too, are read
whole.

usage: check_doc_refs.py ROOT [FILE...]   (default: every file git tracks under ROOT; of results/ its .md files)
Prints one line per dangling pointer, "FILE: points at DOC, "TITLE": no such section", and exits 1
if there is one.
"""
import re
import subprocess
import sys
from pathlib import Path

TEXT_SUFFIXES = {".md", ".cc", ".h", ".cu", ".cuh", ".py", ".sh", ".txt", ".cmake", ".json", ".csv"}
# A line break inside a pointer, with the comment marker or list indent of the next line.
WRAP = re.compile(r"\s*\n\s*(?:(?://|#)(?!#)\s*)?")
# <doc>.md, "<title>" with the file as docs/<doc>.md or <doc>.md, then a comma or colon or nothing
FILE_POINTER = re.compile(r'(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.md)[,:]? "([^"\n]{3,}?)"')
# [text](<doc>.md#<anchor>): a link to a heading by its GitHub anchor.
ANCHOR_LINK = re.compile(r"\]\(((?:[\w.-]+/)*[\w-]+\.md)#([^)\s]+)\)")
# [text](#anchor): a link to a heading of the same document.
OWN_ANCHOR_LINK = re.compile(r"\]\(#([^)\s]+)\)")
# "Title" below / above, inside a document (read in the raw text, its line says which way to look).
SAME_DOC_POINTER = re.compile(r'"([^"]{3,160}?)"\)?,?\s+(below|above)\b')


def normalize(title):
    """Compare titles without markup, case or spacing."""
    title = re.sub(r"[`*_]", "", title)
    return re.sub(r"\s+", " ", title).strip().lower().rstrip(".:,;")


def headings(doc_text):
    """A document's headings, each with its line."""
    for i, line in enumerate(doc_text.splitlines()):
        heading = re.match(r"#{1,6}\s+(.*)", line)
        if heading:
            yield heading.group(1), i


def sections(doc_text):
    """The titles one can point at: headings, and the bold leads that open paragraphs or items
    (read to their closing ** across lines); a title after a colon ("H100 (fifth session): the
    algorithms beyond the ring") counts on its own too."""
    titles = [(normalize(heading), i) for heading, i in headings(doc_text)]  # (title, line)
    lines = doc_text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"\s*(?:[-*]\s+|\d+\.\s+)?\*\*", line):
            paragraph = " ".join(lines[i:i + 6])
            lead = re.match(r"\s*(?:[-*]\s+|\d+\.\s+)?\*\*(.+?)\*\*", paragraph)
            if lead:
                titles.append((normalize(lead.group(1)), i))
    titles += [(t.split(": ", 1)[1], i) for t, i in titles if ": " in t]
    return titles


def anchors(doc_text):
    """GitHub's anchors of a document's headings: lower case, punctuation dropped, spaces to hyphens."""
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading, _ in headings(doc_text)}


def resolve(root, source, doc):
    """The document a pointer names: as written, under docs/, or beside the pointing file."""
    for candidate in (root / doc, root / "docs" / Path(doc).name, source.parent / doc):
        if candidate.is_file():
            return candidate
    return None


def points_at(titles, title, after=None, before=None):
    """A pointer names the start of a title; "…" in it stands for any words. `after` / `before`:
    the title must be on a later / an earlier line than that one (a pointer's "below" / "above")."""
    parts = [re.escape(part.strip()) for part in normalize(title).split("…")]
    wanted = re.compile(r".*?".join(parts))
    return any(wanted.match(t) and (after is None or i > after) and (before is None or i < before) for t, i in titles)


def tracked_files(root):
    """What git tracks (a tree without git: every file but build folders)."""
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True, check=True).stdout
        names = out.splitlines()
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and not p.parts[len(root.parts)].startswith(("build", "."))]
    # Of the measurements only their READMEs: the raw outputs quote whatever the tools printed.
    return [root / f for f in names
            if not f.startswith("tests/docs/bad/") and (not f.startswith("results/") or f.endswith(".md"))]


def check(root, files):
    problems = []
    titles, heading_anchors = {}, {}  # per document read, its sections and its headings' anchors

    def sections_of(doc):
        if doc not in titles:
            titles[doc] = sections(doc.read_text(errors="replace"))
        return titles[doc]

    def anchors_of(doc):
        if doc not in heading_anchors:
            heading_anchors[doc] = anchors(doc.read_text(errors="replace"))
        return heading_anchors[doc]

    for path in files:
        if path.suffix not in TEXT_SUFFIXES or not path.is_file():
            continue
        text = WRAP.sub(" ", path.read_text(errors="replace"))
        rel = path.relative_to(root) if path.is_relative_to(root) else path
        for match in FILE_POINTER.finditer(text):
            doc, title = match.group(1), match.group(2)
            target = resolve(root, path, doc)
            if target is None:
                problems.append(f'{rel}: points at {doc}, "{title}": no such document')
                continue
            if not points_at(sections_of(target), title):
                problems.append(f'{rel}: points at {doc}, "{title}": no such section')
        for match in ANCHOR_LINK.finditer(text):
            doc, anchor = match.group(1), match.group(2)
            target = resolve(root, path, doc)
            if target is None:
                problems.append(f"{rel}: links to {doc}#{anchor}: no such document")
            elif anchor not in anchors_of(target):
                problems.append(f"{rel}: links to {doc}#{anchor}: no such heading")
        if path.suffix == ".md":
            for match in OWN_ANCHOR_LINK.finditer(text):
                if match.group(1) not in anchors_of(path):
                    problems.append(f"{rel}: links to #{match.group(1)} in itself: no such heading")
            raw = path.read_text(errors="replace")
            for match in SAME_DOC_POINTER.finditer(raw):
                title, way = re.sub(r"\s+", " ", match.group(1)), match.group(2)
                line = raw.count("\n", 0, match.start())
                if not points_at(sections_of(path), title):
                    problems.append(f'{rel}: points at "{title}" in itself: no such section')
                elif not points_at(sections_of(path), title, **({"after": line} if way == "below" else {"before": line})):
                    problems.append(f'{rel}:{line + 1}: points at "{title}" {way}: it is {"above" if way == "below" else "below"}')
    return problems


def main(argv):
    if len(argv) < 2:
        print(next(line for line in __doc__.splitlines() if line.startswith("usage:")), file=sys.stderr)
        return 2
    root = Path(argv[1]).resolve()
    files = [Path(f).resolve() for f in argv[2:]] or tracked_files(root)
    problems = check(root, files)
    for p in problems:
        print(p)
    print(f"{len(problems)} dangling pointer(s) into the documentation")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
