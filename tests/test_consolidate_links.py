"""Consolidation's provenance links ("(from [[original]])", merged_from) still reach each
original after it is archived, also when another note shares its name."""

from __future__ import annotations

import re

from conftest import make_service
from obsidian_resolver import links_in, resolve


def _notes(vault) -> list[str]:
    return sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if ".mnemovault" not in p.parts)


def test_provenance_links_resolve_to_the_archived_originals_when_names_are_shared(empty_vault):
    v = empty_vault
    (v / "STM").mkdir(exist_ok=True)
    (v / "Home.md").write_text("A person's own home note.\n", encoding="utf-8")  # same name, vault root
    (v / "STM" / "Home.md").write_text("---\nid: a1\nuse_count: 1\n---\nThe staging database runs Postgres 16.\n",
                                        encoding="utf-8")
    (v / "STM" / "Other.md").write_text("---\nid: b2\nuse_count: 1\n---\nStaging runs Postgres 16 since March.\n",
                                         encoding="utf-8")
    svc = make_service(v)
    try:
        merged = svc.consolidate(["a1", "b2"], apply=True)["note"]["path"]
    finally:
        svc.close()
    text = (v / merged).read_text(encoding="utf-8")
    notes = _notes(v)
    body_links = links_in(text.split("\n---\n", 1)[1])  # the two "(from ...)" lines
    merged_from = re.findall(r'^  - "\[\[([^\]]+)\]\]"$', text, re.M)
    assert len(body_links) == 2 and len(merged_from) == 2, text
    targets = [resolve(t, merged, md, notes, []) for t, md in body_links]
    targets += [resolve(t, merged, False, notes, []) for t in merged_from]
    assert sorted(targets) == ["Archive/Home.md", "Archive/Home.md", "Archive/Other.md", "Archive/Other.md"], text
    assert re.search(r"\(from \[\[[^\]]*Home[^\]]*\]\]\)", text)
