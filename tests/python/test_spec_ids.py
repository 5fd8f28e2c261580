"""Every id of the specification cited in the tree has its entry in docs/spec (issue 20).

Comments, docstrings and messages cite the contract (`CONTRACT D17`, `(B25)`), the decisions
(`DECISIONS "Debug mode"`, `DECISIONS G7`), the seed audit (`SEED-AUDIT 'L0 · Waits'`) and the
map of the public tests (`PUBLIC-TESTS §5`). The documents they name are docs/spec/*.md; this
test scans the tree for the citation forms of PATTERNS and fails, with file:line, for every
citation that has no heading or anchor there.

Pure Python: it needs no build and does not import tack. Where the package is not built (so
conftest.py cannot import it), run it alone with
    python -m pytest tests/python/test_spec_ids.py --noconftest
"""

import io
import os
import re
import tokenize
import unicodedata
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "spec"
SELF = Path(__file__).resolve()

# What is scanned: the source, test, tool and documentation folders, and the top-level files.
SCAN_DIRS = ["src", "tools", "include", "python", "tests", "benchmarks", "scripts", "examples",
             "cmake", "docs"]
SCAN_FILES = ["README.md", "CMakeLists.txt", "Makefile", "mkdocs.yml", "pyproject.toml"]
SKIP_DIRS = {"__pycache__", ".git", "build", "node_modules", ".venv", ".venv-docs"}
# Golden IR dumps are generated output, not prose; docs/spec is what citations resolve to; the
# Unicode tables are data.
SKIP_SUFFIXES = {".ir", ".png", ".jpg", ".npy", ".npz", ".so", ".a", ".o", ".bin", ".gz"}
SKIP_PATHS = {SPEC, ROOT / "src" / "frontend" / "unicode_tables.inc"}

C_FAMILY = {".cpp", ".hpp", ".h", ".c", ".cc", ".cu", ".inc"}

# The citation forms. In source files only comments and string literals (docstrings, messages)
# are scanned, so identifiers such as F32, F64 or a matrix named A2 are never read as ids; in
# Markdown, fenced code blocks are skipped; other text files are scanned whole.
ID = r"[A-G][1-9][0-9]?"
PATTERNS = {
    # A contract id: a section letter A-G and a number, alone as a word and not followed by a
    # call, a subscript or an assignment: `CONTRACT D17`, `(B25)`, `E5:`, `C14-C18`, `D10/E6`,
    # `B2's`.
    "contract_id": re.compile(rf"(?<![\w.#])({ID})(?![\w(\[])(?!\s*=(?!=))"),
    # A range of contract ids of one section: `C14-C18`, `A2–A22`; cites every id between.
    "contract_range": re.compile(r"(?<![\w.#])([A-G])([1-9][0-9]?)\s*[-–]\s*\1([1-9][0-9]?)(?!\w)"),
    # A case of the contract's regression baseline: `LC2`.
    "baseline_case": re.compile(r"(?<![\w.#])LC([0-9]+)(?!\w)"),
    # A section of the contract: `CONTRACT §C`, `CONTRACT.md §G`, or a lone letter ending a
    # list after CONTRACT: `CONTRACT A28, F)`.
    "contract_section": re.compile(
        rf"CONTRACT(?:\.md)?\s*(?:§\s*([A-G])(?![\w])|\s(?:{ID}(?:\s*[-–/]\s*{ID})*\s*,\s*)+"
        rf"([A-G])(?=\s*[),;]))"),
    # Settled conflicts cited as decisions: `DECISIONS G7`, `DECISIONS G6/G7`. Their ids resolve
    # in decisions.md; every other contract id resolves in contract.md.
    "decision_id": re.compile(r"DECISIONS\s+(G[0-9]+(?:\s*[/,]\s*G[0-9]+)*)"),
    # A decision by name: `DECISIONS "Debug mode"`. A bare `DECISIONS` cites the whole page.
    "decision_name": re.compile(r"DECISIONS\s+\"([^\"\n]+)\""),
    # Sections (or one statement) of the seed audit: `SEED-AUDIT 'CUDA · Init'`,
    # `SEED-AUDIT 'L0 · Waits' and 'L0 · asyncio'`, `SEED-AUDIT "Textures"`.
    "seed_audit": re.compile(
        r"SEED-AUDIT\s+((['\"])[^'\"\n]+\2(?:\s+and\s+(['\"])[^'\"\n]+\3)*)"),
    # A numbered section of the public tests' map: `PUBLIC-TESTS §7`, `PUBLIC-TESTS.md section 5`.
    "public_tests": re.compile(r"PUBLIC-TESTS(?:\.md)?\s*(?:§\s*|section\s+)([0-9]+)"),
    # A link into the specification: `docs/spec/contract.md#a39`, `spec/decisions.md#g7`.
    "spec_link": re.compile(r"(?<![\w/.-])(?:docs/)?spec/([\w-]+)\.md#([\w-]+)"),
    # A heading of a docs page by its text: `docs/decisions.md ("HIP contracts with ...")`.
    "docs_heading": re.compile(r"docs/([\w-]+)\.md\s*\(\s*\"([^\"\n]+)\"\s*\)"),
    # The contract by line number of a file outside the repository (`CONTRACT.md:382`): never
    # resolves; cite the id instead.
    "contract_line": re.compile(r"CONTRACT\.md:([0-9]+(?:,[0-9]+)*)"),
}
# Each pattern with a text it must match (and what it finds) and texts it must not match.
EXAMPLES = {
    "contract_id": (["CONTRACT D17", "(B25)", "// E5: image", "D10/E6", "B2's rule"],
                    ["F32(0.1)", "A2 = np.eye(2)", "0xE1", "x.A3", "tack.F64", "LC2", "E2E",
                     "A100", "#D1"]),
    "contract_range": (["CONTRACT C14-C18", "A2–A22"], ["C14-D18", "x-A2"]),
    "baseline_case": (["(LC2)", "LC8:"], ["LC_ALL", "ULC2"]),
    "contract_section": (["CONTRACT §C", "CONTRACT A28, F)"], ["CONTRACT OFF", "CONTRACT A28"]),
    "decision_id": (["DECISIONS G7", "DECISIONS G6/G7"], ["DECISIONS: a step"]),
    "decision_name": (['DECISIONS "Debug mode"'], ["DECISIONS semantics"]),
    "seed_audit": (["SEED-AUDIT 'CUDA · Init'", "SEED-AUDIT 'L0 · Waits' and 'L0 · asyncio'"],
                   ["SEED-AUDIT-STATUS.md"]),
    "public_tests": (["PUBLIC-TESTS §7", "PUBLIC-TESTS.md section 5"], ["PUBLIC-TESTS.md"]),
    "spec_link": (["docs/spec/contract.md#a39", "(spec/decisions.md#g7)"], ["spec/contract.md"]),
    "docs_heading": (['docs/decisions.md ("HIP contracts")'], ["docs/decisions.md"]),
    "contract_line": (["CONTRACT.md:382,695"], ["CONTRACT.md"]),
}


# --- the specification's anchors and headings ---------------------------------------------------

def slugify(text):
    """Python-Markdown's toc slug: the anchor a heading without an explicit id gets."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def normalize(name):
    """A cited name and a heading compare equal when their letters and digits do."""
    name = unicodedata.normalize("NFKD", name.replace("`", "")).casefold()
    return " ".join(re.findall(r"[^\W_]+", name))


HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{\s*#([\w-]+)[^}]*\})?\s*$")
ALIASES = re.compile(r"^Also cited as:\s*(.*)$")


def page_index(path):
    """(anchors, names) of a Markdown page: every heading's anchor, and every heading's text
    and `Also cited as: "..."` alias, normalized, mapped to the anchor it names."""
    anchors, names, current, fenced = set(), {}, None, False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        m = HEADING.match(line)
        if m:
            text = m[2]
            current = m[3] or slugify(re.sub(r"<[^>]+>", "", text.replace("`", "")))
            anchors.add(current)
            names[normalize(text)] = current
            # `G7 · A kernel may return a value` is also found by its title alone.
            names[normalize(re.sub(r"^\S+\s+·\s+", "", text))] = current
            continue
        m = ALIASES.match(line)
        if m and current:
            for alias in re.findall(r"\"([^\"]+)\"", m[1]):
                names[normalize(alias)] = current
    return anchors, names


def docs_index():
    pages = {}
    for path in sorted((ROOT / "docs").rglob("*.md")):
        pages[path.relative_to(ROOT / "docs").as_posix()] = page_index(path)
    return pages


# --- the text a file cites from -----------------------------------------------------------------

def c_regions(text):
    """(offset, text) of every comment and string literal of C or C++ source."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((i, text[i:j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append((i, text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum()
                                                          or text[i - 1] == "_")):
            k = text.find("(", i + 2)
            delim = text[i + 2:k] if k >= 0 else ""
            j = text.find(")" + delim + '"', k) if k >= 0 else -1
            j = n if j < 0 else j + len(delim) + 2
            out.append((i, text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                out.append((i, text[i:j + 1]))
            i = j + 1
        else:
            i += 1
    return out


def python_regions(text):
    """(offset, text) of every comment and string (docstrings included) of Python source."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    kinds = {tokenize.COMMENT, tokenize.STRING}
    if hasattr(tokenize, "FSTRING_MIDDLE"):
        kinds.add(tokenize.FSTRING_MIDDLE)
    try:
        return [(starts[t.start[0] - 1] + t.start[1], t.string)
                for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type in kinds]
    except (tokenize.TokenError, SyntaxError):
        return [(0, text)]


def markdown_regions(text):
    """The text of a Markdown file outside fenced code blocks (examples, not citations)."""
    out, offset, fenced = [], 0, False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            out.append((offset, line))
        offset += len(line)
    return out


def regions(path, text):
    if path.suffix in C_FAMILY:
        return c_regions(text)
    if path.suffix == ".py":
        return python_regions(text)
    if path.suffix == ".md":
        return markdown_regions(text)
    return [(0, text)]


def scanned_files():
    for name in SCAN_FILES:
        if (ROOT / name).is_file():
            yield ROOT / name
    for top in SCAN_DIRS:
        for folder, dirs, files in os.walk(ROOT / top):
            here = Path(folder)
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")
                             and here / d not in SKIP_PATHS)
            for f in sorted(files):
                path = here / f
                if path.suffix not in SKIP_SUFFIXES and path not in SKIP_PATHS and path != SELF:
                    yield path


# --- citations ----------------------------------------------------------------------------------

def citations_in(text):
    """(offset, page, kind, key) of every citation in `text`: `kind` is "anchor" (key is an
    anchor of `page`) or "name" (key is a heading or alias of `page`)."""
    found = []
    decision_spans = []
    for m in PATTERNS["decision_id"].finditer(text):
        decision_spans.append(m.span(1))
        for g in re.findall(r"G[0-9]+", m[1]):
            found.append((m.start(), "spec/decisions.md", "anchor", g.lower()))
    for m in PATTERNS["contract_id"].finditer(text):
        if not any(a <= m.start() < b for a, b in decision_spans):
            found.append((m.start(), "spec/contract.md", "anchor", m[1].lower()))
    for m in PATTERNS["contract_range"].finditer(text):
        for k in range(int(m[2]) + 1, int(m[3])):
            found.append((m.start(), "spec/contract.md", "anchor", f"{m[1].lower()}{k}"))
    for m in PATTERNS["baseline_case"].finditer(text):
        found.append((m.start(), "spec/contract.md", "anchor", f"lc{m[1]}"))
    for m in PATTERNS["contract_section"].finditer(text):
        found.append((m.start(), "spec/contract.md", "anchor", (m[1] or m[2]).lower()))
    for m in PATTERNS["decision_name"].finditer(text):
        found.append((m.start(), "spec/decisions.md", "name", m[1]))
    for m in PATTERNS["seed_audit"].finditer(text):
        for name in re.findall(r"(['\"])([^'\"\n]+)\1", m[1]):
            found.append((m.start(), "spec/seed-audit.md", "name", name[1]))
    for m in PATTERNS["public_tests"].finditer(text):
        found.append((m.start(), "spec/public-tests.md", "anchor", f"section-{m[1]}"))
    for m in PATTERNS["spec_link"].finditer(text):
        found.append((m.start(), f"spec/{m[1]}.md", "anchor", m[2]))
    for m in PATTERNS["docs_heading"].finditer(text):
        found.append((m.start(), f"{m[1]}.md", "name", m[2]))
    for m in PATTERNS["contract_line"].finditer(text):
        for line in m[1].split(","):
            found.append((m.start(), "spec/contract.md", "anchor", f"line {line}: cite the id"))
    return found


def all_citations():
    """(file:line, page, kind, key, the citation's text) for the whole tree."""
    out = []
    for path in scanned_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "\0" in text:
            continue
        for start, chunk in regions(path, text):
            for offset, page, kind, key in citations_in(chunk):
                at = start + offset
                line = text.count("\n", 0, at) + 1
                snippet = text[at:at + 60].split("\n")[0]
                out.append((f"{path.relative_to(ROOT)}:{line}", page, kind, key, snippet))
    return out


@pytest.fixture(scope="module")
def pages():
    return docs_index()


@pytest.fixture(scope="module")
def citations():
    return all_citations()


# --- tests --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_patterns_match_their_examples(name):
    """Each pattern finds its documented forms and none of the look-alikes."""
    good, bad = EXAMPLES[name]
    for text in good:
        assert PATTERNS[name].search(text), f"{name} misses {text!r}"
    for text in bad:
        assert not PATTERNS[name].search(text), f"{name} wrongly matches {text!r}"


def test_comments_are_scanned_and_code_is_not():
    text = ('// CONTRACT D17: pristine\nValue F32(double v);\nauto s = "(DECISIONS G7)";\n'
            "int n = 1'000; // E5\n")
    found = [key for _, chunk in c_regions(text) for _, _, _, key in citations_in(chunk)]
    assert found == ["d17", "g7", "e5"]
    py = 'A2 = f(F32)  # (B25)\n"""Docstring (CONTRACT C26)."""\n'
    found = [key for _, chunk in python_regions(py) for _, _, _, key in citations_in(chunk)]
    assert found == ["b25", "c26"]


def test_every_cited_id_resolves(pages, citations):
    """Every citation in the tree names a heading or anchor of docs/spec (or of the docs page it
    names)."""
    assert len(citations) > 500, "the scan found almost no citations: is a pattern broken?"
    unresolved = []
    for where, page, kind, key, snippet in citations:
        anchors, names = pages.get(page, (set(), {}))
        ok = key in anchors if kind == "anchor" else normalize(key) in names
        if not ok:
            target = f"{page}#{key}" if kind == "anchor" else f'{page} heading "{key}"'
            unresolved.append(f"{where}: {snippet!r} -> {target}")
    assert not unresolved, (f"{len(unresolved)} citations have no entry in docs/spec:\n"
                            + "\n".join(unresolved))


def test_the_contract_numbers_each_section_without_gaps(pages):
    """contract.md has every id of each section from 1 up, so a range always resolves."""
    anchors, _ = pages["spec/contract.md"]
    by_section = defaultdict(set)
    for a in anchors:
        m = re.fullmatch(r"([a-g])([0-9]+)", a)
        if m:
            by_section[m[1]].add(int(m[2]))
    assert sorted(by_section) == list("abcdefg")
    for section, numbers in by_section.items():
        assert numbers == set(range(1, max(numbers) + 1)), f"section {section.upper()} has gaps"


def test_anchors_are_unique(pages):
    for path in sorted(SPEC.glob("*.md")):
        seen = defaultdict(int)
        for line in path.read_text(encoding="utf-8").splitlines():
            m = HEADING.match(line)
            if m:
                seen[m[3] or slugify(m[2].replace("`", ""))] += 1
        assert not [a for a, n in seen.items() if n > 1], (
            f"{path.name}: repeated anchors {sorted(a for a, n in seen.items() if n > 1)}")
