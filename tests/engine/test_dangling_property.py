"""Property: the engine's dangling-link report equals an independent
resolver written from Obsidian's rules (tests/obsidian_resolver.py) over generated vaults
with shared names, attachments, aliases, relative and URL-encoded Markdown links, escaped
table pipes, headings, and links inside code that are not links; and that every link means
the same note to both (same-name ties, composed and decomposed names, names ending in a
space, links in frontmatter lists)."""

from __future__ import annotations

import shutil
import tempfile
import unicodedata
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import obsidian_resolver
from conftest import make_service
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vault_sync.index.queries import all_links_by_source
from vault_sync.index.resolver import build_resolver

FOLDERS = ["", "STM", "LTM", "it", "it/deep", "Projects", "a/b"]  # a/b: deeper, yet a shorter path
# "Café" decomposed, as macOS may name it; "Trail " ends in a space
NAMES = ["Home", "Plan", "Idea one", "C# notes", "Résumé", unicodedata.normalize("NFD", "Café"), "Trail "]
ATTACHMENTS = ["img/pic.png", "it/manual.pdf", "board.canvas", "tasks.base"]
# targets that exist nowhere: a missing name, an alias, a wrong extension, a missing picture
MISSING = ["Nothing here", "Nick", "Home.png", "missing.png", "it/Plan", "deep/Home"]


def link(form: int, target: str, source: str, label: str) -> str:
    """`target` (a vault path, a bare name or a missing one) written in one of many forms."""
    stem = target[:-3] if target.endswith(".md") else target
    name = stem.rsplit("/", 1)[-1]
    rel = Path("/".join([".."] * source.count("/")) or ".") / stem if "/" in source else Path(stem)
    return [
        f"[[{name}|{label}]]",
        f"[[{stem}#Part|{label}]]",
        f"| [[{stem}\\|{label}]] |",
        f"[{label}]({quote(stem, safe='/')})",
        f"[{label}]({quote(stem, safe='/')}.md)",
        f"[{label}](<{name}>)",
        f"![[{name}]]",
        f"[{label}]({quote(rel.as_posix(), safe='/.')})",
        f"[[{name.upper()}]]",
        f"[[{unicodedata.normalize('NFC', name)}|{label}]]",
        f"[[{unicodedata.normalize('NFD', stem)}]]",
        f'  - "[[{stem}|{label}]]"',  # a list item of the frontmatter
    ][form % 12]


def normal(target: str) -> str:
    t = target.split("#", 1)[0].strip().replace("\\", "/").lower()
    return t[:-3] if t.endswith(".md") else t


vaults = st.tuples(
    st.lists(st.tuples(st.sampled_from(FOLDERS), st.sampled_from(NAMES)), min_size=2, max_size=9, unique=True),
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40), st.integers(0, 11)), min_size=3, max_size=25),
    st.sets(st.sampled_from(ATTACHMENTS)),
)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(vaults)
@example(([("Projects", "Home"), ("a/b", "Home"), ("", "Plan")], [(2, 0, 0), (1, 0, 0), (0, 1, 4)], set()))  # a tie
def test_the_dangling_report_equals_an_independent_resolver(spec):
    notes, links, attachments = spec
    paths = [f"{f}/{n}.md".lstrip("/") for f, n in notes]
    targets = paths + ATTACHMENTS + MISSING  # attachments not in `attachments` are missing too
    tmp = Path(tempfile.mkdtemp())
    try:
        v = tmp / "vault"
        bodies: dict[str, list[str]] = {
            p: ["# Title", "## Part", "text with `[[Not a link]]` inside code"] for p in paths
        }
        props: dict[str, list[str]] = {p: [] for p in paths}
        for i, (s, t, form) in enumerate(links):
            src, target = paths[s % len(paths)], targets[t % len(targets)]
            if target in ATTACHMENTS or "." in target.rsplit("/", 1)[-1] and not target.endswith(".md"):
                form = [0, 6, 8][form % 3] if "/" not in target else 1  # attachments: with their extension
            text = link(form, target, src, f"L{i}")
            (props if text.startswith("  - ") else bodies)[src].append(text)
        bodies[paths[0]] += ["```", "[[Inside a fence]]", "```"]
        for p in paths:
            (v / p).parent.mkdir(parents=True, exist_ok=True)
            aliases = "aliases: [Nick]\n" if p.endswith("Home.md") else ""
            see = "see:\n" + "\n".join(props[p]) + "\n" if props[p] else ""
            front = f"---\n{aliases}{see}---\n" if aliases or see else ""
            (v / p).write_text(front + "\n\n".join(bodies[p]) + "\n", encoding="utf-8")
        for f in attachments:
            (v / f).parent.mkdir(parents=True, exist_ok=True)
            (v / f).write_bytes(b"x")
        (v / "STM").mkdir(exist_ok=True)
        svc = make_service(v)
        engine = Counter((d["source"], normal(d["target"])) for d in svc.dangling_links())
        resolver = build_resolver(svc.store)
        engine_targets = Counter(
            (r["path"], resolver.resolve(r["target"], r["path"], bool(r["markdown"])))
            for r in all_links_by_source(svc.store)
        )
        svc.close()
        independent = Counter((s, normal(t)) for s, t in obsidian_resolver.dangling(v))
        assert engine == independent
        # and every link, resolving or not, means the same note to both (same-name ties)
        notes_, files_ = sorted(paths), sorted(attachments)
        assert engine_targets == Counter(
            (p, obsidian_resolver.resolve(t, p, md, notes_, files_))
            for p in paths
            for t, md in obsidian_resolver.links_in((v / p).read_text(encoding="utf-8"))
        )
        CHECKED.append(sum(independent.values()))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


CHECKED: list[int] = []


def test_the_property_saw_dangling_and_resolving_links():
    if not CHECKED:
        test_the_dangling_report_equals_an_independent_resolver()
    assert sum(CHECKED) >= 50 and sum(1 for n in CHECKED if n == 0) < len(CHECKED)


def test_the_independent_resolver_on_known_cases():
    notes, files = ["Home.md", "a/b/Plan.md", "it/Plan.md", "it/Home.md"], ["img/pic.png"]
    r = obsidian_resolver.resolve
    assert r("Home", "it/Plan.md", False, notes, files) == "Home.md"  # a vault path first
    assert r("Plan", "a/b/Plan.md", False, notes, files) == "a/b/Plan.md"  # then the linking note's folder
    assert r("Plan", "Home.md", False, notes, files) == "it/Plan.md"  # else the shortest path
    assert r("pic.png", "Home.md", False, notes, files) == "img/pic.png"
    assert r("Plan.png", "Home.md", False, notes, files) is None
    assert r("../Home", "it/Plan.md", True, notes, files) == "Home.md"
    assert r("Nick", "Home.md", False, notes, files) is None  # aliases never resolve
    assert obsidian_resolver.links_in(
        "```\n[[a]]\n```\n`[[b]]` [[c\\|d]] [x](<e f.md>) [y](g%20h) [z](https://x.y) [w](C%23%20x#Part)"
    ) == [("c", False), ("e f.md", True), ("g h", True), ("C# x", True)]
