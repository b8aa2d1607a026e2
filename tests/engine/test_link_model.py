"""Obsidian's link model (docs/links.md): attachments, no aliases, Markdown links without
.md, escaped table pipes, and moves that never retarget a link to a shared name."""

from __future__ import annotations

from pathlib import Path

from conftest import assert_index_matches_rebuild, make_service

from vault_sync.index.resolver import build_resolver
from vault_sync.links import extract


def note(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def targets(svc, source: str) -> dict[str, str | None]:
    resolver = build_resolver(svc.store)
    row = svc.store.note(source)
    return {
        r["target"]: resolver.resolve(r["target"], source, bool(r["markdown"]))
        for r in svc.store.query("SELECT target, markdown FROM links WHERE source=?", (row["rowid"],))
    }


def dangling_targets(svc) -> set[str]:
    return {d["target"] for d in svc.dangling_links()}


def test_extraction_of_every_form():
    body = (
        "[[pic.png]] ![[manual.pdf#page=3]] [[board.canvas]] [[tasks.base]] "
        "[t](Note%20name) [u](../STM/x) ![](img/x.png) | [[STM/y\\|al]] |\n"
    )
    links, _, _ = extract(body)
    got = {(x.target, x.subpath, x.kind, x.markdown) for x in links}
    assert ("pic.png", "", "link", False) in got
    assert ("manual.pdf", "#page=3", "embed", False) in got
    assert ("board.canvas", "", "link", False) in got and ("tasks.base", "", "link", False) in got
    assert ("Note name", "", "link", True) in got and ("../STM/x", "", "link", True) in got
    assert ("img/x.png", "", "embed", True) in got
    assert ("STM/y", "", "link", False) in got


def test_attachments_resolve_aliases_do_not(empty_vault):
    v = empty_vault
    (v / "files").mkdir()
    for name in ("pic.png", "manual.pdf", "board.canvas", "tasks.base"):
        (v / "files" / name).write_bytes(b"x")
    note(v / "Target note.md", "---\naliases: [Nick]\n---\nhello\n")
    note(
        v / "STM" / "src.md",
        "[[pic.png]] ![[manual.pdf#page=3]] [[board.canvas]] [[tasks.base]] "
        "[[Nick]] [[missing.png]] ![](../files/pic.png) [t](../Target%20note) [u](Target%20note)\n",
    )
    svc = make_service(v)
    got = targets(svc, "STM/src.md")
    assert got["pic.png"] == "files/pic.png" and got["manual.pdf"] == "files/manual.pdf"
    assert got["board.canvas"] == "files/board.canvas" and got["tasks.base"] == "files/tasks.base"
    assert got["../files/pic.png"] == "files/pic.png"
    assert got["../Target note"] == "Target note.md" and got["Target note"] == "Target note.md"
    assert got["Nick"] is None and got["missing.png"] is None
    assert dangling_targets(svc) == {"Nick", "missing.png"}
    # an attachment appearing or going is seen by a path sync (the watcher's route), like a rebuild
    (v / "missing.png").write_bytes(b"x")
    (v / "files" / "board.canvas").unlink()
    svc.writes.synced(["missing.png", "files/board.canvas"])
    assert dangling_targets(svc) == {"Nick", "board.canvas"}
    assert_index_matches_rebuild(svc)


def test_markdown_links_without_md_and_escaped_pipes_follow_a_move(empty_vault):
    v = empty_vault
    note(v / "STM" / "Deep idea.md", "an idea worth keeping\n")
    note(
        v / "Projects" / "refs.md",
        "[a](../STM/Deep%20idea) [b](STM/Deep%20idea#Why) [c](<../STM/Deep idea>)\n\n"
        "| col | link |\n|---|---|\n| 1 | [[STM/Deep idea\\|the idea]] |\n",
    )
    svc = make_service(v)
    before = targets(svc, "Projects/refs.md")
    assert set(before.values()) == {"STM/Deep idea.md"}
    svc.promote("STM/Deep idea.md")
    text = (v / "Projects" / "refs.md").read_text(encoding="utf-8")
    assert "[a](../LTM/Deep%20idea)" in text and "[b](LTM/Deep%20idea#Why)" in text
    assert "[c](<../LTM/Deep idea>)" in text
    assert "[[LTM/Deep idea\\|the idea]]" in text  # the table's escape is kept
    assert set(targets(svc, "Projects/refs.md").values()) == {"LTM/Deep idea.md"}
    assert svc.dangling_links() == []
    assert_index_matches_rebuild(svc)


def test_archiving_a_shared_name_never_retargets_a_bare_link(empty_vault):
    v = empty_vault
    note(v / "STM" / "Home.md", "the STM home\n")
    note(v / "it" / "Home.md", "casa\n")
    note(v / "STM" / "start.md", "[[Home|Open]] and [[it/Home]]\n")  # same folder: STM/Home
    note(v / "Archive" / "old.md", "[[Home]]\n")  # shortest path rule: STM/Home (depth 1, 'STM' < 'it')
    svc = make_service(v)
    resolver = build_resolver(svc.store)
    before = {s: resolver.resolve("Home", s) for s in ("STM/start.md", "Archive/old.md")}
    assert before["STM/start.md"] == "STM/Home.md"
    svc.archive("STM/Home.md")
    start = (v / "STM" / "start.md").read_text(encoding="utf-8")
    assert "[[Archive/Home|Open]]" in start and "[[it/Home]]" in start
    got = targets(svc, "STM/start.md")
    assert got["Archive/Home"] == "Archive/Home.md" and got["it/Home"] == "it/Home.md"
    # Archive/old.md's [[Home]] now sits beside Archive/Home.md: it must keep meaning what it meant
    after = build_resolver(svc.store)
    old = (v / "Archive" / "old.md").read_text(encoding="utf-8")
    link = old.split("[[", 1)[1].split("]]", 1)[0]
    want = "Archive/Home.md" if before["Archive/old.md"] == "STM/Home.md" else before["Archive/old.md"]
    assert after.resolve(link, "Archive/old.md") == want
    assert_index_matches_rebuild(svc)


def test_links_we_write_resolve_for_every_legal_name(empty_vault):
    from vault_sync.ops.ltm_index import link_markup, with_related

    v = empty_vault
    names = ["Pipe | bar", "C# notes", "Array [brackets]", "plain name"]
    for n in names:
        note(v / "STM" / f"{n}.md", "body\n")
    note(v / "LTM" / "host.md", "x\n")
    text = with_related("x\n", [f"STM/{n}" for n in names])
    assert "- [[STM/plain name]]" in text
    (v / "LTM" / "host.md").write_text(text, encoding="utf-8")
    svc = make_service(v)
    assert set(targets(svc, "LTM/host.md").values()) == {f"STM/{n}.md" for n in names}
    assert svc.dangling_links() == []
    # merging into the section again adds nothing: the Markdown-link forms are recognised
    assert with_related(text, [f"STM/{n}" for n in names]) == text
    assert link_markup("C# notes").startswith("[C# notes](C%23%20notes.md")


def test_related_heading_inside_code_is_not_the_section():
    from vault_sync.ops.ltm_index import with_related

    text = "intro\n\n```md\n## Related\n\n- [[fake]]\n```\n\nend\n"
    out = with_related(text, ["real"])
    assert out.startswith(text)  # the fenced block is untouched
    assert out.endswith("## Related\n\n- [[real]]\n")


def test_frontmatter_closed_with_dots_is_not_frontmatter(empty_vault):
    v = empty_vault
    original = "---\ntitle: dots\n...\nbody text\n"
    note(v / "STM" / "dots.md", original)
    svc = make_service(v)
    row = svc.store.note("STM/dots.md")
    assert row is not None and not row["writable"]  # reported, never edited as frontmatter
    svc.sweep()
    assert (v / "STM" / "dots.md").read_text(encoding="utf-8") == original
