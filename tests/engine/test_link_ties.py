"""Same-name ties, Unicode and spacing of names, frontmatter links, and link forms across a
move and its undo: the engine's resolver, its dangling-link report and its rewrites on a
move follow one rule (docs/links.md), and an independent reading of Obsidian's rules
(tests/obsidian_resolver.py) agrees with it."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import obsidian_resolver
import pytest
from conftest import assert_index_matches_rebuild, make_service

from vault_sync.index.resolver import build_resolver
from vault_sync.ops.relate import backlinks

MEMORY = """---
id: {id}
created: 2026-11-20T10:30:00Z
last_used: 2026-11-20T10:30:00Z
use_count: 1
strength: 1.0
status: active
---
{body}
"""


def write(vault: Path, rel: str, text: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def memory(vault: Path, rel: str, n: int, body: str = "A memory.") -> None:
    write(vault, rel, MEMORY.format(id=f"00000000-0000-4000-8000-{n:012d}", body=body))


def on_disk(vault: Path) -> tuple[list[str], list[str]]:
    files = [
        p.relative_to(vault).as_posix()
        for p in vault.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(vault).parts)
    ]
    return [f for f in files if f.endswith(".md")], [f for f in files if not f.endswith(".md")]


def both(vault: Path, svc, target: str, source: str, markdown: bool = False) -> str | None:
    """The engine's answer, checked against the independent resolver's."""
    notes, files = on_disk(vault)
    engine = build_resolver(svc.store).resolve(target, source, markdown)
    assert engine == obsidian_resolver.resolve(target, source, markdown, notes, files), (target, source)
    return engine


# (target, linking note) -> the note Obsidian opens. Ties observed in Obsidian (docs/links.md):
# an exact vault path first, then the linking note's folder (an ancestor counts for nothing),
# then the shortest path string (not the fewest folders).
TIES = [
    ("Note", "s.md", "a/b/Note.md"),  # 11 characters beat zzzz/Note.md's 12
    ("Note", "zzzz/s.md", "zzzz/Note.md"),  # the linking note's folder
    ("Note", "zzzz/deep/s.md", "a/b/Note.md"),  # a parent folder counts for nothing
    ("Note", "a/b/s.md", "a/b/Note.md"),
    ("Note", "Projects/s.md", "a/b/Note.md"),
    ("b/Note", "zzzz/s.md", "a/b/Note.md"),  # the end of a path
    ("zzzz/Note", "a/b/s.md", "zzzz/Note.md"),  # a vault path
    ("NOTE", "s.md", "a/b/Note.md"),  # case does not matter
    ("Same", "s.md", "x/Same.md"),  # equal lengths: the spelling, then path order
    ("SAME", "s.md", "y/SAME.md"),
    ("Plan", "s.md", "Plan.md"),  # a note, not Plan.pdf
    ("Plan.pdf", "s.md", "Plan.pdf"),
    ("Plan.md", "s.md", "Plan.md"),
    ("Top", "zzzz/s.md", "Top.md"),  # a root note is the exact vault path
]


@pytest.fixture
def tie_vault(empty_vault):
    vault = empty_vault
    for rel in ("zzzz/Note.md", "a/b/Note.md", "x/Same.md", "y/SAME.md", "Plan.md", "Top.md", "zzzz/Top.md"):
        write(vault, rel, f"# {rel}\n")
    (vault / "Plan.pdf").write_bytes(b"%PDF-1.4\n")
    for source in {s for _, s, _ in TIES}:
        write(vault, source, " ".join(f"[[{t}]]" for t, s, _ in TIES if s == source) + "\n")
    return vault


def test_ties_resolve_as_obsidian_does_in_the_resolver_and_the_dangling_report(tie_vault):
    svc = make_service(tie_vault)
    try:
        assert [(t, s, both(tie_vault, svc, t, s)) for t, s, _ in TIES] == TIES
        assert svc.dangling_links() == [] and obsidian_resolver.dangling(tie_vault) == []
        # backlinks read the same rule: zzzz/Note.md is linked from its own folder only
        assert {b["source"] for b in backlinks(svc.engine, "zzzz/Note.md")} == {"zzzz/s.md", "a/b/s.md"}
    finally:
        svc.close()


def test_a_root_note_wins_over_one_beside_the_link(empty_vault):
    for rel in ("Note.md", "zzzz/Note.md", "zzzz/s.md"):
        write(empty_vault, rel, "[[Note]]\n" if rel.endswith("s.md") else "x\n")
    svc = make_service(empty_vault)
    try:
        assert both(empty_vault, svc, "Note", "zzzz/s.md") == "Note.md"
    finally:
        svc.close()


def test_decomposed_and_composed_names_and_trailing_spaces_resolve(empty_vault):
    vault = empty_vault
    nfd, nfc = unicodedata.normalize("NFD", "Café"), unicodedata.normalize("NFC", "Crème")
    write(vault, f"{nfd}.md", "x\n")  # a file name from macOS: decomposed
    write(vault, f"Notes/{nfc}.md", "x\n")
    write(vault, "Trail .md", "x\n")  # a name ending in a space
    links = (
        f"[[{unicodedata.normalize('NFC', 'Café')}]] [[{unicodedata.normalize('NFD', 'Crème')}]] "
        f"[[Trail ]] [[Trail]] [t](<Trail .md>) [t](Trail%20.md)\n"
    )
    write(vault, "s.md", links)
    svc = make_service(vault)
    try:
        assert svc.dangling_links() == []
        assert obsidian_resolver.dangling(vault) == []
        assert both(vault, svc, "Café", "s.md") == f"{nfd}.md"
        assert both(vault, svc, unicodedata.normalize("NFD", "Crème"), "s.md") == f"Notes/{nfc}.md"
        assert both(vault, svc, "Trail", "s.md") == "Trail .md"
        assert both(vault, svc, "Trail .md", "s.md", markdown=True) == "Trail .md"
        assert {b["source"] for b in backlinks(svc.engine, f"{nfd}.md")} == {"s.md"}
        assert {b["source"] for b in backlinks(svc.engine, "Trail .md")} == {"s.md"}
    finally:
        svc.close()


def test_wikilinks_in_frontmatter_values_are_links_and_follow_a_move(empty_vault):
    vault = empty_vault
    memory(vault, "STM/Other note.md", 1)
    write(vault, "Second.md", "x\n")
    write(vault, "Home.md", '---\nsee: "[[Other note]]"\nalso:\n  - "[[Other note|that]] and [[Second]]"\n---\nbody\n')
    svc = make_service(vault)
    try:
        assert svc.dangling_links() == [] and obsidian_resolver.dangling(vault) == []
        assert {b["source"] for b in backlinks(svc.engine, "Second.md")} == {"Home.md"}
        assert [b["source"] for b in backlinks(svc.engine, "STM/Other note.md")] == ["Home.md", "Home.md"]
        write(vault, "People/Other note.md", "a person's note of the same name\n")
        svc.sync()
        assert backlinks(svc.engine, "People/Other note.md") == []
        # archived, the memory's bare name would open the person's note: the frontmatter follows it
        svc.archive("STM/Other note.md")
        home = (vault / "Home.md").read_text(encoding="utf-8")
        assert 'see: "[[Archive/Other note]]"' in home and '"[[Archive/Other note|that]] and [[Second]]"' in home
        assert {b["source"] for b in backlinks(svc.engine, "Archive/Other note.md")} == {"Home.md"}
        assert svc.dangling_links() == []
        assert_index_matches_rebuild(svc)
    finally:
        svc.close()


def test_a_move_and_its_undo_restore_every_link_as_written(empty_vault):
    vault = empty_vault
    memory(vault, "STM/設定.md", 1)
    memory(vault, "STM/x.md", 2)
    write(vault, "People/設定.md", "another note of the same name, a shorter path than Archive/設定.md\n")
    write(vault, "ja/設定 notes.md", "x\n")
    write(vault, "People/x.md", "another x\n")
    forms = "[[設定]] [[設定|the settings]] [[設定#Part]] [[STM/x]] [[/STM/x]]\n[abs](/STM/x.md) [bare](STM/x.md)\n"
    write(vault, "Home.md", forms)
    write(vault, "Projects/deep/refs.md", "[rel](../../STM/x.md) [[設定]] [angle](<../../STM/x.md>)\n")
    original = {p: (vault / p).read_text(encoding="utf-8") for p in ("Home.md", "Projects/deep/refs.md")}
    svc = make_service(vault)
    try:
        before = {(p, t): both(vault, svc, t, p) for p in original for t in ("設定", "STM/x")}
        assert before[("Home.md", "設定")] == "STM/設定.md"
        archived = svc.archive("STM/設定.md")
        home = (vault / "Home.md").read_text(encoding="utf-8")
        assert (
            "[[Archive/設定]]" in home and "[[Archive/設定|the settings]]" in home
        )  # People/設定.md would take [[設定]]
        svc.restore("Archive/設定.md", prior=archived["prior"])
        archived_x = svc.archive("STM/x.md")
        home = (vault / "Home.md").read_text(encoding="utf-8")
        assert "[[/Archive/x]]" in home and "(/Archive/x.md)" in home and "[[Archive/x]]" in home
        svc.restore("Archive/x.md", prior=archived_x["prior"])
        for p, text in original.items():
            assert (vault / p).read_text(encoding="utf-8") == text, p
        assert svc.dangling_links() == [] and obsidian_resolver.dangling(vault) == []
        assert_index_matches_rebuild(svc)
    finally:
        svc.close()


def test_a_link_the_person_rewrote_meanwhile_keeps_the_new_form(empty_vault):
    vault = empty_vault
    memory(vault, "STM/x.md", 1)
    write(vault, "People/x.md", "another x\n")
    write(vault, "Home.md", "[[x]]\n")
    svc = make_service(vault)
    try:
        assert both(vault, svc, "x", "Home.md") == "STM/x.md"
        archived = svc.archive("STM/x.md")
        assert (vault / "Home.md").read_text(encoding="utf-8") == "[[Archive/x]]\n"
        write(vault, "Home.md", "[[Archive/x|mine]]\n")  # the person's own edit: any form is theirs now
        svc.sync()
        svc.restore("Archive/x.md", prior=archived["prior"])
        home = (vault / "Home.md").read_text(encoding="utf-8")
        assert home in ("[[x|mine]]\n", "[[STM/x|mine]]\n")
        assert both(vault, svc, home[2:].split("|")[0], "Home.md") == "STM/x.md"
    finally:
        svc.close()
