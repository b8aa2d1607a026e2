"""Imports of what the tools really write: a Basic Memory project written by Basic Memory's
own code, a Mem0 `get_all` answer produced by Mem0's own code (tests/fixtures/*/make_*.py
made them; the tests only read them), and the bounds every imported field is held to."""

from __future__ import annotations

import json
import os
import re
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from conftest import make_service
from test_transfer import by_source_id, cg_memory, notes, write_jsonl
from typer.testing import CliRunner

from bridge.cli import app
from vault_sync.limits import MAX_METADATA_CHARS, MAX_RELATIONS
from vault_sync.transfer import BadSource

FIXTURES = Path(__file__).parent.parent / "fixtures"
BM = FIXTURES / "basic_memory"


def links_of(svc, path: str) -> set[str]:
    row = svc.resolve(path)
    return {r["target"] for r in svc.store.query("SELECT target FROM links WHERE source = ?", (row["rowid"],))}


# -- Basic Memory --
def test_a_project_written_by_basic_memory_imports_whole(empty_vault):
    svc = make_service(empty_vault)
    r = svc.import_memories("basic-memory", BM / "project")
    assert (r["created"], r["refused"], r["duplicate_permalinks"]) == (4, 0, [])
    got = by_source_id(empty_vault)
    assert set(got) == {
        "fixture/people/ann-smith",
        "fixture/people/bob-jones",
        "fixture/orgs/acme-corp",
        "fixture/meetings/weekly-standup",
    }
    ann, body = got["fixture/people/ann-smith"]
    assert ann["source"] == "basic-memory" and ann["entity_type"] == "person" and ann["tags"] == ["team", "platform"]
    assert "- [role] Leads the platform team #work" in body and "- works_at [[Acme Corp]]" in body
    bob = got["fixture/people/bob-jones"]
    assert "- [preference] Likes written updates" in bob[1]  # its edit_note append
    # write_note's metadata is a frontmatter key of its own: kept, not dropped
    assert json.loads(got["fixture/meetings/weekly-standup"][0]["source_metadata"]) == {"attendees": ["Ann", "Bob"]}
    ann_path = next(p for p in notes(empty_vault) if "Ann" in p)
    assert {"Acme Corp", "Bob Jones"} <= links_of(svc, ann_path)
    before = notes(empty_vault)
    again = svc.import_memories("basic-memory", BM / "project")
    assert (again["created"], again["skipped"]) == (0, 4) and notes(empty_vault) == before


def test_two_files_with_one_permalink_are_both_kept_and_reported(empty_vault, tmp_path):
    proj = tmp_path / "dup"
    shutil.copytree(BM / "duplicate", proj)
    original, copy = proj / "people" / "Ann Smith.md", proj / "people" / "Ann Smith copy.md"
    with open(copy, "a", encoding="utf-8") as fh:  # the copy was then edited
        fh.write("- [note] The copy says Ann moved to the data team\n")
    os.utime(original, (1_790_000_000, 1_790_000_000))
    os.utime(copy, (1_790_100_000, 1_790_100_000))  # the copy is the newer file
    svc = make_service(empty_vault)
    r = svc.import_memories("basic-memory", proj)
    assert r["duplicate_permalinks"] == [
        {
            "permalink": "fixture/people/ann-smith",
            "files": ["people/Ann Smith.md", "people/Ann Smith copy.md"],
            "ids": ["fixture/people/ann-smith", "fixture/people/ann-smith-1"],
        }
    ]
    assert (r["created"], r["refused"]) == (5, 0)
    got = by_source_id(empty_vault)
    assert "moved to the data team" not in got["fixture/people/ann-smith"][1]
    assert "moved to the data team" in got["fixture/people/ann-smith-1"][1]  # nothing lost
    # the id Basic Memory's own sync gave the copy (duplicate-sync.txt): a later import of the synced folder matches
    assert "fixture/people/ann-smith-1" in (BM / "duplicate-sync.txt").read_text(encoding="utf-8")
    before = notes(empty_vault)
    assert svc.import_memories("basic-memory", proj)["created"] == 0 and notes(empty_vault) == before
    res = CliRunner().invoke(app, ["import", "basic-memory", str(proj), "--dry-run", "--vault", str(empty_vault)])
    assert "permalink fixture/people/ann-smith is used by 2 files" in " ".join(res.output.split())


def test_other_frontmatter_keys_are_kept_as_json_dates_as_their_iso_text(empty_vault, tmp_path):
    proj = tmp_path / "bm"
    proj.mkdir()
    (proj / "trip.md").write_text(
        "---\ntitle: Trip\npermalink: trip\ndate: 2026-05-08\nstatus: planned\n---\n"
        "- [plan] Visit the glass museum in Murano\n",
        encoding="utf-8",
    )
    svc = make_service(empty_vault)
    assert svc.import_memories("basic-memory", proj)["created"] == 1
    fm, _ = by_source_id(empty_vault)["trip"]
    assert json.loads(fm["source_metadata"]) == {"date": "2026-05-08", "status": "planned"}
    assert fm["status"] == "active"  # a source's `status` never becomes ours


def test_an_unchanged_copy_reinforces_its_original(empty_vault, tmp_path):
    proj = tmp_path / "dup"
    shutil.copytree(BM / "duplicate", proj)
    svc = make_service(empty_vault)
    r = svc.import_memories("basic-memory", proj)
    assert (r["created"], r["reinforced"]) == (4, 1) and len(r["duplicate_permalinks"]) == 1


# -- Mem0 --
def test_a_mem0_get_all_answer_imports_whole(empty_vault):
    src = FIXTURES / "mem0" / "export.json"
    records = json.loads(src.read_text(encoding="utf-8"))["results"]
    deleted = json.loads((FIXTURES / "mem0" / "expected.json").read_text(encoding="utf-8"))["ids"]["cats"]
    svc = make_service(empty_vault)
    r = svc.import_memories("mem0", src)
    assert (r["created"], r["refused"]) == (3, 0)
    got = by_source_id(empty_vault)
    assert set(got) == {rec["id"] for rec in records} and deleted not in got
    for rec in records:
        fm, body = got[rec["id"]]
        assert body.strip() == rec["memory"]
        assert fm["created"] == datetime.fromisoformat(rec["created_at"]).replace(microsecond=0)  # kept to the second
        assert fm["last_used"] == datetime.fromisoformat(rec["updated_at"]).replace(microsecond=0)
        assert json.loads(fm["source_metadata"]) == {**rec["metadata"], "user_id": "ann", "role": "user"}
    job = next(fm for fm, body in got.values() if "insurer" in body)  # updated: its new text, both dates
    assert job["last_used"] > job["created"]
    before = notes(empty_vault)
    assert svc.import_memories("mem0", src)["created"] == 0 and notes(empty_vault) == before


# -- bounds: every imported field has a limit; past it the record is named and nothing is written --
def test_megabytes_of_mem0_metadata_refuse_the_source_naming_record_and_field(empty_vault, tmp_path):
    src = tmp_path / "mem0.json"
    src.write_text(
        json.dumps(
            {
                "results": [
                    {"id": "a1", "memory": "Likes hiking in the Alps on weekends", "metadata": {"app": "chat"}},
                    {
                        "id": "a2",
                        "memory": "Is vegetarian and allergic to peanuts",
                        "metadata": {"blob": "x" * 3_000_000},
                    },
                ]
            }
        ),
        encoding="utf-8",
    )
    svc = make_service(empty_vault)
    with pytest.raises(BadSource) as exc:
        svc.import_memories("mem0", src)
    assert exc.value.problems == [
        f"item 2: `metadata` is too large (3,000,012 characters as JSON, limit {MAX_METADATA_CHARS:,})"
    ]
    assert notes(empty_vault) == {}
    ok = tmp_path / "ok.json"
    ok.write_text(
        json.dumps(
            [
                {
                    "id": "a3",
                    "memory": "Rides a blue bike to work every day",
                    "metadata": {"n": "y" * (MAX_METADATA_CHARS - 20)},
                }
            ]
        )
    )
    assert svc.import_memories("mem0", ok)["created"] == 1  # just under: kept, and the note is indexed
    assert svc.store.query("SELECT count(*) AS n FROM notes")[0]["n"] == 1


def test_every_format_bounds_its_other_fields(empty_vault, tmp_path):
    svc = make_service(empty_vault)
    cases = {
        "cortexgraph": (
            write_jsonl(
                tmp_path / "cg.jsonl",
                [
                    cg_memory(1),
                    cg_memory(2, use_count=10**400),
                    {"id": "r", "from_memory_id": "mem-1", "to_memory_id": "mem-2", "relation_type": "t" * 41},
                    {"id": "x" * 1025, "content": "An id longer than any ref"},
                ],
            ),
            ["line 2: use_count", "line 3: `relation_type` is too long", "line 4: `id` is too long"],
        ),
        # checked once the lines are well-formed: what the replayed store holds
        "cortexgraph ": (
            write_jsonl(
                tmp_path / "cg2.jsonl",
                [
                    cg_memory(1),
                    *(
                        {"id": f"r{i}", "from_memory_id": "mem-1", "to_memory_id": f"mem-{i}"}
                        for i in range(MAX_RELATIONS + 1)
                    ),
                ],
            ),
            ["line 1: 101 relations from one memory"],
        ),
        "jsonl": (
            write_jsonl(
                tmp_path / "ours.jsonl",
                [
                    {
                        "path": "STM/a.md",
                        "kind": "stm",
                        "frontmatter": "id: a\nx: " + "y" * 70_000 + "\n",
                        "text": "Some text\n",
                    },
                ],
            ),
            ["line 1: `frontmatter` is too large"],
        ),
    }
    bm = tmp_path / "bm"
    bm.mkdir()
    (bm / "a.md").write_text("---\ntitle: A\npermalink: a\ntype: " + "t" * 300 + "\n---\nA body of text\n")
    (bm / "b.md").write_text("---\ntitle: B\npermalink: b\nnotes: " + "n" * 20_000 + "\n---\nB body of text\n")
    cases["basic-memory"] = (bm, ["a.md: `type` is too long", "b.md: `frontmatter (besides title"])
    for fmt, (src, starts) in cases.items():
        with pytest.raises(BadSource) as exc:
            svc.import_memories(fmt.strip(), src)
        problems = exc.value.problems
        assert len(problems) == len(starts), (fmt, problems)
        for want in starts:
            assert any(p.startswith(want) for p in problems), (fmt, want, problems)
        assert notes(empty_vault) == {}


# -- ChatGPT (a hand-written file in the real export's structure: fixtures/chatgpt/README.md) --
def test_a_chatgpt_export_keeps_what_was_said_including_voice(empty_vault, tmp_path):
    export = tmp_path / "export"
    export.mkdir()
    shutil.copyfile(FIXTURES / "chatgpt" / "conversations.json", export / "conversations.json")
    for companion in ("user.json", "message_feedback.json", "shared_conversations.json"):
        (export / companion).write_text("[]" if companion != "user.json" else '{"id": "user-1"}', encoding="utf-8")
    svc = make_service(empty_vault)
    r = svc.import_memories("chat", export)
    got = {sid: body.strip() for sid, (fm, body) in by_source_id(empty_vault).items()}
    sourdough, garden = "6a1f0c2e-0000-4000-8000-000000000001", "6a1f0c2e-0000-4000-8000-000000000002"
    assert got == {
        f"{sourdough}:m-u1": "User: Which sourdough starter ratio should I feed on weekdays?",
        f"{sourdough}:m-a2": "Assistant: Feed it one part starter, five parts flour and water each.",
        f"{sourdough}:m-u2": "User: Here is a photo of the jar after a night on the counter.",
        f"{sourdough}:m-a3": "Assistant: That rise looks right; bake with it tomorrow morning.",
        # a voice conversation: the words said, from the transcription parts
        f"{garden}:v-u1": "User: When should I plant the tomato seedlings outside?",
        f"{garden}:v-a1": "Assistant: After the last frost, once nights stay above ten degrees.",
    }, got
    assert r["created"] == 6 and r["refused"] == 0
    before = notes(empty_vault)
    assert svc.import_memories("chat", export)["created"] == 0 and notes(empty_vault) == before


def test_the_bounds_table_in_the_import_doc_is_the_codes():
    from vault_sync import limits

    doc = (Path(__file__).parent.parent.parent / "docs" / "import.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| [^|]+ \| ([\d,]+) [^|]*\| `(MAX_\w+)` \|$", doc, re.M)
    assert len(rows) == 7
    for value, name in rows:
        assert int(value.replace(",", "")) == getattr(limits, name), name
