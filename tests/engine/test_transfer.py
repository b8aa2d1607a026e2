"""Import from other memory tools and export: every format from fixtures written here
(from each tool's documented format), the gate, idempotence, and an exact round trip."""

from __future__ import annotations

import asyncio
import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import FIXED_NOW, make_service
from fastmcp import Client
from typer.testing import CliRunner

from bridge.cli import app
from bridge.mcp_server import build_mcp
from vault_sync.fmblock import find_block, load_yaml
from vault_sync.transfer import BadSource

SECRET = "Our deploy key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG for the bot"
T0 = int(datetime(2026, 10, 1, tzinfo=timezone.utc).timestamp())


def fm_of(path: Path) -> tuple[dict, str]:
    text = path.read_text(encoding="utf-8")
    block = find_block(text)
    return load_yaml(text[block.yaml_start : block.yaml_end]), text[block.body_start :]


def notes(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*.md"))}


def by_source_id(vault: Path) -> dict[str, tuple[dict, str]]:
    out = {}
    for p in vault.rglob("*.md"):
        fm, body = fm_of(p)
        if fm and "source_id" in fm:
            out[str(fm["source_id"])] = (fm, body)
    return out


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records) + "\n",
        encoding="utf-8",
    )
    return path


def cg_memory(i: int, text: str | None = None, **kw) -> dict:
    rec = {
        "id": f"mem-{i}",
        "content": text or f"Memory number {i} about the build server setup",
        "tags": ["infra"],
        "created_at": T0 + i,
        "last_used": T0 + 86400 + i,
        "use_count": 3,
        "strength": 1.2,
        "status": "active",
    }
    rec.update(kw)
    return rec


# -- cortexgraph --
def test_cortexgraph_keeps_counters_dates_relations_refuses_secrets_and_is_idempotent(empty_vault, tmp_path):
    src = write_jsonl(
        tmp_path / "memories.jsonl",
        [
            cg_memory(1, "Ann prefers tabs over spaces in Python — ünïcödé 日本語"),
            cg_memory(2, "The staging database lives on db-stage-2 in Frankfurt"),
            cg_memory(3, SECRET),
            cg_memory(4, "the staging DATABASE lives on db-stage-2   in Frankfurt"),  # a duplicate of 2
            {"from_memory_id": "mem-1", "to_memory_id": "mem-2", "relation_type": "related"},
        ],
    )
    svc = make_service(empty_vault)
    r = svc.import_memories("cortexgraph", src)
    assert (r["created"], r["reinforced"], r["refused"]) == (2, 1, 1)
    assert r["refusals"][0]["where"] == "line 3" and "secret" in r["refusals"][0]["cause"]
    assert not any("sk-ant" in b.decode() for b in notes(empty_vault).values())
    got = by_source_id(empty_vault)
    fm1, body1 = got["mem-1"]
    assert fm1["source"] == "cortexgraph" and "日本語" in body1
    assert fm1["created"] == datetime.fromtimestamp(T0 + 1, tz=timezone.utc)
    assert fm1["last_used"] == datetime.fromtimestamp(T0 + 86401, tz=timezone.utc)
    assert (fm1["use_count"], fm1["strength"]) == (4, 1.2)  # 3 touches there: the save and 3 uses here
    mem2 = next(
        p for p in notes(empty_vault) if by_source_id(empty_vault)["mem-2"][1] in notes(empty_vault)[p].decode()
    )
    assert fm1["related"] == [f"[[{Path(mem2).stem}]]"] and "relations" not in fm1  # a link, not text
    assert got["mem-2"][0]["use_count"] == 8  # its in-file duplicate folded in as more uses (4 + 4)
    assert svc.status()["sources"] == {"cortexgraph": 2}

    async def mcp_status():
        async with Client(build_mcp(lambda: svc)) as c:
            result = await c.call_tool("status", {})
            return result.structured_content or json.loads(result.content[0].text)

    assert asyncio.run(mcp_status())["sources"] == {"cortexgraph": 2}  # the MCP status tool reports it

    before = notes(empty_vault)
    again = svc.import_memories("cortexgraph", src)
    assert (again["created"], again["reinforced"], again["skipped"]) == (0, 0, 3)
    assert notes(empty_vault) == before


def test_cortexgraph_malformed_lines_are_each_reported_and_nothing_is_written(empty_vault, tmp_path):
    src = write_jsonl(
        tmp_path / "memories.jsonl",
        [
            cg_memory(1),
            "{not json",
            cg_memory(3, use_count="many"),
            {"content": "no id here at all"},
            cg_memory(5, created_at="yesterday-ish"),
            '["a list"]',
            cg_memory(1),  # line 7: an update, no problem
            {"id": "mem-1", "_deleted": True, "content": 5},
            {"_deleted": True},
        ],
    )
    svc = make_service(empty_vault)
    with pytest.raises(BadSource) as exc:
        svc.import_memories("cortexgraph", src)
    problems = exc.value.problems
    assert [p.split(":")[0] for p in problems] == ["line 2", "line 3", "line 4", "line 5", "line 6", "line 9"]
    assert "use_count" in problems[1] and "id" in problems[2] and "created_at" in problems[3]
    assert notes(empty_vault) == {}


def test_a_large_import_is_one_batch_not_per_note_work(empty_vault, tmp_path, monkeypatch):
    """What keeps 10,000 memories under 10 s (the figure is in `mnemovault bench`, not here):
    one index sync for the batch, no fsync per note, no YAML parse per rendered value."""
    import os

    import vault_sync.patch as patch_mod

    n = 2000
    src = write_jsonl(
        tmp_path / "big.jsonl", [cg_memory(i, f"Memory {i}: note about topic {i % 97} and item {i}") for i in range(n)]
    )
    svc = make_service(empty_vault)
    calls = {"fsync": 0, "sync": 0, "yaml": 0}
    real_fsync, real_sync, real_yaml = os.fsync, svc.indexer.sync_paths, patch_mod.load_yaml

    def spy(name, real):
        def wrapper(*a, **kw):
            calls[name] += 1
            return real(*a, **kw)

        return wrapper

    monkeypatch.setattr(os, "fsync", spy("fsync", real_fsync))
    monkeypatch.setattr(svc.indexer, "sync_paths", spy("sync", real_sync))
    monkeypatch.setattr(patch_mod, "load_yaml", spy("yaml", real_yaml))
    r = svc.import_memories("cortexgraph", src)
    assert r["created"] == n and svc.status()["counts"]["stm"] == n
    assert calls["sync"] == 1  # the whole batch indexed at once
    assert calls["fsync"] <= 5  # the folders once, not each note
    assert calls["yaml"] == 0  # plain values rendered without a parse
    fm, _ = by_source_id(empty_vault)["mem-7"]
    assert (fm["use_count"], fm["strength"], fm["tags"]) == (4, 1.2, ["infra"])  # rendered values read back


# -- mem0 --
def test_mem0_export(empty_vault, tmp_path):
    src = tmp_path / "mem0.json"
    src.write_text(
        json.dumps(
            {
                "results": [
                    {
                        "id": "a1",
                        "memory": "Likes hiking in the Alps on weekends",
                        "created_at": "2025-03-01T10:00:00-08:00",
                        "updated_at": "2025-04-01T10:00:00Z",
                        "metadata": {"app": "chat"},
                        "categories": ["hobbies"],
                    },
                    {
                        "id": "a2",
                        "memory": "Uses the token ghp_abcdefghijklmnopqrstuvwxyz0123456789 for CI",
                        "categories": [],
                    },
                    {"id": "a3", "memory": "Is vegetarian and allergic to peanuts", "metadata": {"note": SECRET}},
                    {"id": "a4", "memory": "Has two cats named Miso and Tofu"},
                ]
            }
        ),
        encoding="utf-8",
    )
    svc = make_service(empty_vault)
    r = svc.import_memories("mem0", src, tag="from-mem0")
    assert (r["created"], r["refused"]) == (2, 2)
    assert {x["where"] for x in r["refusals"]} == {"item 2", "item 3"}  # a secret in metadata is refused too
    fm, body = by_source_id(empty_vault)["a1"]
    assert body.strip() == "Likes hiking in the Alps on weekends"
    assert fm["tags"] == ["hobbies", "from-mem0"] and json.loads(fm["source_metadata"]) == {"app": "chat"}
    assert fm["created"] == datetime(2025, 3, 1, 18, tzinfo=timezone.utc)
    assert fm["last_used"] == datetime(2025, 4, 1, 10, tzinfo=timezone.utc)
    before = notes(empty_vault)
    assert svc.import_memories("mem0", src, tag="from-mem0")["created"] == 0
    assert notes(empty_vault) == before

    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps([{"id": "x", "memory": "fine text for a memory"}, {"id": 3, "memory": "x"}, {"memory": 5}])
    )
    with pytest.raises(BadSource) as exc:
        svc.import_memories("mem0", bad)
    assert [p.split(":")[0] for p in exc.value.problems] == ["item 2", "item 3"]
    assert notes(empty_vault) == before


# -- basic memory --
def test_basic_memory_folder_kept_byte_for_byte(empty_vault, tmp_path):
    proj = tmp_path / "bm"
    (proj / "people").mkdir(parents=True)
    (proj / "people" / "ann.md").write_text(
        "---\ntitle: Ann Smith\ntype: person\npermalink: people/ann-smith\ntags:\n- team\n---\n\n# Ann Smith\n\n"
        "## Observations\n- [role] Leads the platform team #work\n- [preference] Prefers async standups\n\n"
        "## Relations\n- works_at [[Acme Corp]]\n- mentors [[Bob Jones]]\n",
        encoding="utf-8",
    )
    (proj / "acme.md").write_text(
        "---\ntitle: Acme Corp\ntype: organization\npermalink: acme-corp\n---\n\n"
        "- [fact] Founded in 1999 in Zürich\n- employs [[Ann Smith]]\n",
        encoding="utf-8",
    )
    (proj / "secret.md").write_text(f"---\ntitle: Keys\npermalink: keys\n---\n{SECRET}\n", encoding="utf-8")
    digest = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in proj.rglob("*") if p.is_file()}
    svc = make_service(empty_vault)
    r = svc.import_memories("basic-memory", proj)
    assert (r["created"], r["refused"]) == (2, 1) and r["refusals"][0]["where"] == "secret.md"
    fm, body = by_source_id(empty_vault)["people/ann-smith"]
    assert fm["source"] == "basic-memory" and fm["entity_type"] == "person" and fm["tags"] == ["team"]
    assert "- [role] Leads the platform team #work" in body and "- mentors [[Bob Jones]]" in body
    ann = svc.resolve(next(p for p in notes(empty_vault) if "ann" in p.lower()))
    targets = {row["target"] for row in svc.store.query("SELECT target FROM links WHERE source = ?", (ann["rowid"],))}
    assert {"Acme Corp", "Bob Jones"} <= targets
    assert svc.import_memories("basic-memory", proj)["created"] == 0
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in proj.rglob("*") if p.is_file()} == digest

    (proj / "broken.md").write_text("---\ntitle: [unclosed\n---\nbody text of a broken note\n", encoding="utf-8")
    (proj / "latin1.md").write_bytes("caf\xe9 au lait every morning".encode("latin-1"))
    before = notes(empty_vault)
    with pytest.raises(BadSource) as exc:
        svc.import_memories("basic-memory", proj)
    assert sorted(p.split(":")[0] for p in exc.value.problems) == ["broken.md", "latin1.md"]
    assert notes(empty_vault) == before


# -- markdown --
def test_markdown_folder_claude_sections_bullets_and_notes(empty_vault, tmp_path):
    src = tmp_path / "md"
    src.mkdir()
    (src / "CLAUDE.md").write_text(
        "# Project notes\nintro line\n\n## Build\nRun make test before every commit.\n\n"
        "## Style\nUse four spaces and type hints everywhere.\n",
        encoding="utf-8",
    )
    (src / "chatgpt.md").write_text(
        "- Lives in Lisbon since 2021\n- Works as a data engineer at a bank\n"
        "- Lives in Lisbon since 2021\n* Has a daughter named Inês\n",
        encoding="utf-8",
    )
    (src / "idea.md").write_text("# Garden plan\nPlant tomatoes along the south wall in April.\n", encoding="utf-8")
    svc = make_service(empty_vault)
    r = svc.import_memories("markdown", src)
    # 2 sections + 3 distinct bullets (the repeat has the same id: one memory) + 1 note
    assert r["created"] == 6, r
    got = by_source_id(empty_vault)
    assert got["CLAUDE.md#Build"][1].strip() == "Build: Run make test before every commit."
    assert any("Inês" in body for _, body in got.values())
    assert got["idea.md"][1].startswith("# Garden plan")
    before = notes(empty_vault)
    assert svc.import_memories("markdown", src)["created"] == 0
    assert notes(empty_vault) == before


def test_dry_run_writes_nothing_and_cli_prints_the_plan(empty_vault, tmp_path):
    src = write_jsonl(
        tmp_path / "m.jsonl", [cg_memory(1), cg_memory(2, SECRET), {"from_memory_id": "mem-1", "to_memory_id": "mem-9"}]
    )
    make_service(empty_vault).close()
    runner = CliRunner()
    res = runner.invoke(app, ["import", "cortexgraph", str(src), "--dry-run", "--vault", str(empty_vault)])
    assert res.exit_code == 0, res.output
    assert "1 would be created" in res.output and "refused line 2" in res.output
    assert "relation kept as text: line 1 related -> mem-9" in res.output
    assert notes(empty_vault) == {}
    res = runner.invoke(app, ["import", "cortexgraph", str(tmp_path / "nope.jsonl"), "--vault", str(empty_vault)])
    assert res.exit_code == 2 and "no such file" in res.output


# -- export and the round trip --
def test_export_then_import_jsonl_into_an_empty_vault_is_exact(vault, tmp_path):
    svc = make_service(vault)
    svc.save("A memory saved just before the export, with ünïcödé", tags=["x"])
    out = tmp_path / "all.jsonl"
    res = CliRunner().invoke(
        app, ["export", "--format", "jsonl", "--scope", "all", "--out", str(out), "--vault", str(vault)]
    )
    assert res.exit_code == 0, res.output
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    kinds = {r["kind"] for r in records}
    assert "stm" in kinds and "ltm" in kinds and all(r["owned"].get("id") for r in records)
    assert any(r["links"] for r in records)

    fresh = tmp_path / "fresh"
    (fresh / "STM").mkdir(parents=True)
    svc2 = make_service(fresh)
    r = svc2.import_memories("jsonl", out)
    imported = sum(1 for rec in records if rec["kind"] in ("stm", "ltm", "archive"))
    assert r["created"] + r["refused"] == imported
    back = {json.loads(line)["id"]: json.loads(line) for line in "".join(svc2.export("jsonl", "all")).splitlines()}
    for rec in records:
        if any(x["id"] == rec["id"] for x in r["refusals"]):
            continue
        twin = back[rec["id"]]
        assert (twin["owned"], twin["text"], twin["frontmatter"]) == (rec["owned"], rec["text"], rec["frontmatter"])
        assert twin["path"] == rec["path"]
        a, b = svc.resolve(rec["path"]), svc2.resolve(twin["path"])
        assert a["decay_score"] == b["decay_score"]
    before = notes(fresh)
    assert svc2.import_memories("jsonl", out)["created"] == 0
    assert notes(fresh) == before

    csv_text = "".join(svc.export("csv", "stm"))
    assert csv_text.splitlines()[0].startswith("path,kind,id,title,tags")
    assert "ünïcödé" in csv_text and "LTM/" not in csv_text


def test_basic_memory_thousand_notes_every_observation_and_relation_present(empty_vault, tmp_path):
    proj = tmp_path / "bm1000"
    proj.mkdir()
    for i in range(1000):
        (proj / f"entity-{i}.md").write_text(
            f"---\ntitle: Entity {i}\ntype: concept\npermalink: entity-{i}\n---\n\n# Entity {i}\n\n"
            f"- [fact] Entity {i} was observed on day {i}\n- [idea] Entity {i} relates to topic {i % 13}\n"
            f"- relates_to [[Entity {(i + 1) % 1000}]]\n",
            encoding="utf-8",
        )
    digest = {p.name: p.read_bytes() for p in proj.iterdir()}
    svc = make_service(empty_vault)
    assert svc.import_memories("basic-memory", proj)["created"] == 1000
    got = by_source_id(empty_vault)
    for i in range(1000):
        body = got[f"entity-{i}"][1]
        assert f"- [fact] Entity {i} was observed on day {i}" in body
        assert f"- relates_to [[Entity {(i + 1) % 1000}]]" in body
    assert svc.status()["dangling_links"] == 0  # every relation resolves to its imported entity
    assert {p.name: p.read_bytes() for p in proj.iterdir()} == digest


def test_a_twin_already_in_the_vault_is_reinforced_once(empty_vault, tmp_path):
    svc = make_service(empty_vault)
    saved = svc.save("The office wifi is called Orchard-5G")["note"]
    src = write_jsonl(tmp_path / "m.jsonl", [cg_memory(7, "the office WiFi is called   Orchard-5G")])
    r = svc.import_memories("cortexgraph", src)
    assert (r["created"], r["reinforced"]) == (0, 1) and r["reinforcements"][0]["twin"] == saved["path"]
    fm, _ = fm_of(empty_vault / saved["path"])
    assert fm["use_count"] == 2 and fm["last_used"] == FIXED_NOW and fm["source_id"] == "mem-7"
    before = notes(empty_vault)
    assert svc.import_memories("cortexgraph", src)["reinforced"] == 0  # a re-run does not reinforce again
    assert notes(empty_vault) == before
