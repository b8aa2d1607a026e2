"""Hostile import sources: a file handed to `mnemovault import` is untrusted. Ids that look
like paths, paths in our own export format, a 50 MB line, deep JSON nesting, a YAML bomb, a
symbolic link out of the source folder, an oversized file: each is refused or neutralised
with the line or file named, nothing lands outside the vault, and a malformed source writes
nothing (docs/security.md, "Importing untrusted files")."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import make_service

from vault_sync.fmblock import find_block, load_yaml
from vault_sync.transfer import BadSource

TEXT = "A perfectly ordinary memory about the weekly team meeting"


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@pytest.fixture
def place(tmp_path):
    """A vault and a source folder side by side; everything else in tmp_path is watched."""
    vault = tmp_path / "vault"
    (vault / "STM").mkdir(parents=True)
    src = tmp_path / "source"
    src.mkdir()
    return tmp_path, vault, src


def outside(tmp_path: Path) -> dict[str, bytes]:
    """Every file under tmp_path that is not in the vault or its index (the source included)."""
    return {
        k: v
        for k, v in tree(tmp_path).items()
        if not k.startswith("vault/") and "index.sqlite3" not in k and not k.startswith("userdirs")
    }


def frontmatter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    block = find_block(text)
    return load_yaml(text[block.yaml_start : block.yaml_end])


def test_ids_that_look_like_paths_never_become_paths(place):
    tmp, vault, src = place
    f = src / "m.jsonl"
    f.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"id": "../../../escaped", "content": TEXT},
                {"id": "/etc/passwd", "content": TEXT + " on Fridays"},
                {"id": "x\nstatus: promoted", "content": TEXT + " in room 4"},  # frontmatter injection
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    before = outside(tmp)
    svc = make_service(vault)
    r = svc.import_memories("cortexgraph", f)
    assert (r["created"], r["refused"]) == (2, 1)
    assert r["refusals"][0]["where"] == "line 3" and "line break" in r["refusals"][0]["cause"]
    written = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    assert all(p.startswith("STM/") and p.count("/") == 1 for p in written), written
    assert {frontmatter(vault / p)["source_id"] for p in written} == {"../../../escaped", "/etc/passwd"}
    assert all(frontmatter(vault / p)["status"] == "active" for p in written)
    assert outside(tmp) == before


def test_paths_in_our_own_export_format_stay_inside_the_kinds_folder(place):
    tmp, vault, src = place
    records = []
    for i, path in enumerate(
        [
            "../../escaped.md",
            "STM/../../escaped2.md",
            "/etc/escaped3.md",
            "STM/.obsidian/x.md",
            "STM/a\x00b.md",
            "STM/C:\\\\Windows\\\\evil.md",
            "LTM/ok/../../../x.md",
        ]
    ):
        records.append(
            {"path": path, "kind": "stm", "frontmatter": f"id: hostile-{i}\n", "text": f"{TEXT} number {i}\n"}
        )
    f = src / "export.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    before = outside(tmp)
    svc = make_service(vault)
    r = svc.import_memories("jsonl", f)
    assert r["created"] == len(records), r
    written = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    assert len(written) == len(records)
    assert all(p.startswith("STM/") and p.count("/") == 1 and "\x00" not in p and ".." not in p for p in written), (
        written
    )
    assert not (vault / "STM" / ".obsidian").exists()
    assert outside(tmp) == before


def test_a_50_mb_line_and_deep_nesting_are_reported_and_nothing_is_written(place):
    tmp, vault, src = place
    f = src / "m.jsonl"
    with open(f, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "ok", "content": TEXT}) + "\n")
        fh.write('{"id": "big", "content": "' + "a" * (50 * 1024 * 1024) + '"}\n')
        fh.write("[" * 200_000 + "\n")
    svc = make_service(vault)
    with pytest.raises(BadSource) as exc:
        svc.import_memories("cortexgraph", f)
    problems = exc.value.problems
    assert problems[0].startswith("line 2: too long") and problems[1] == "line 3: not JSON (nested too deeply)"
    assert len(str(exc.value)) < 1000  # the message names the lines, it does not echo them
    assert list(vault.rglob("*.md")) == []

    deep = src / "mem0.json"
    deep.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    with pytest.raises(BadSource, match="nested too deeply"):
        svc.import_memories("mem0", deep)
    assert list(vault.rglob("*.md")) == []


def test_a_yaml_bomb_a_link_out_and_an_oversized_note_in_a_source_folder(place):
    tmp, vault, src = place
    private = tmp / "private.md"
    private.write_text("The combination of the safe is 12-34-56 and nobody else knows it\n", encoding="utf-8")
    (src / "fine.md").write_text("# Fine\nA fine note about the garden and its tomatoes.\n", encoding="utf-8")
    (src / "bomb.md").write_text(
        "---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n---\nbody\n",
        encoding="utf-8",
    )
    os.symlink(private, src / "linked.md")
    with open(src / "huge.md", "wb") as fh:
        fh.truncate(17 * 1024 * 1024)  # sparse: its size is refused before anything is read
    svc = make_service(vault)
    for fmt in ("markdown", "basic-memory"):
        with pytest.raises(BadSource) as exc:
            svc.import_memories(fmt, src)
        causes = {p.split(":", 1)[0]: p for p in exc.value.problems}
        assert set(causes) == {"bomb.md", "huge.md", "linked.md"}, exc.value.problems
        assert "not followed" in causes["linked.md"] and "too large" in causes["huge.md"]
        assert list(vault.rglob("*.md")) == []
    assert "12-34-56" not in "".join(p.read_text() for p in vault.rglob("*") if p.is_file() and p.suffix == ".md")
