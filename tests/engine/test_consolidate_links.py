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
    (v / "STM" / "Home.md").write_text(
        "---\nid: a1\nuse_count: 1\n---\nThe staging database runs Postgres 16.\n", encoding="utf-8"
    )
    (v / "STM" / "Other.md").write_text(
        "---\nid: b2\nuse_count: 1\n---\nStaging runs Postgres 16 since March.\n", encoding="utf-8"
    )
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


def test_consolidating_a_chain_keeps_the_newest_fact_and_moves_the_chain_links(empty_vault):
    import pytest
    from conftest import assert_index_matches_rebuild

    from vault_sync.errors import WrongState

    svc = make_service(empty_vault)
    try:
        old = svc.save("My train leaves at 8:10 from platform two", title="Train 810")["note"]
        new = svc.save("My train leaves at 8:40 from platform two", title="Train 840", supersedes=[old["id"]])["note"]
        # its own memory (a save would reinforce `new`: the same fact in other words)
        twin = svc.create_memory("The train I take leaves at 8:40, platform two", title="Train twin")
        older = svc.save("My train used to leave at 7:50 from platform one", title="Train 750")["note"]
        svc.supersede(older["id"], new["id"])  # outside the set, superseded by a merged original
        other = svc.save("The gym opens at six on weekdays", title="Gym")["note"]
        with pytest.raises(WrongState, match="never merged"):  # what replaced it is not among these
            svc.consolidate([old["id"], other["id"]])
        preview = svc.consolidate([old["id"], new["id"], twin["id"]])["plan"]
        assert [s["path"] for s in preview["sources"]] == [new["path"], twin["path"]]
        assert [s["path"] for s in preview["superseded"]] == [old["path"]]
        assert "8:10" not in preview["text"]
        out = svc.consolidate([old["id"], new["id"], twin["id"]], apply=True)
        assert out["errors"] == []
        merged = out["note"]["path"]
        text = (empty_vault / merged).read_text(encoding="utf-8")
        assert "8:40" in text and "8:10" not in text and "7:50" not in text
        assert sorted(m["from"] for m in out["archived"]) == sorted([new["path"], twin["path"]])
        assert (
            empty_vault / old["path"]
        ).exists()  # the old fact is not merged: still superseded, now by the merged note
        for gone in (old, older):
            [mem] = svc.get_memory([gone["id"]])
            assert mem["history"]["current"] == merged and mem["history"]["chain"][-1] == merged, mem["history"]
        assert "supersedes" not in (empty_vault / "Archive" / "Train 840.md").read_text(encoding="utf-8")
        hits = svc.search("what time does my train leave")["results"]
        assert hits[0]["path"] == merged and not any("8:10" in (h.get("snippet") or "") for h in hits)
        assert old["path"] not in [h["path"] for h in hits]
        with pytest.raises(WrongState, match="every one"):  # nothing current left to merge
            svc.consolidate([old["id"], older["id"]])
        assert_index_matches_rebuild(svc)
    finally:
        svc.close()
