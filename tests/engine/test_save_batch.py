"""save_many / MCP save_memories: many memories in one call, with conversation keys."""

from __future__ import annotations

import asyncio

import pytest
from conftest import make_service
from fastmcp import Client

from bridge.mcp_server import build_mcp
from vault_sync.errors import InvalidInput
from vault_sync.fmblock import find_block, load_yaml

SECRET = "Our deploy key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG for the bot"


def frontmatter(path):
    text = path.read_text(encoding="utf-8")
    block = find_block(text)
    return load_yaml(text[block.yaml_start : block.yaml_end]), text[block.body_start :]


def test_save_many_writes_each_item_with_conversation_keys(empty_vault):
    svc = make_service(empty_vault)
    answer = svc.save_many(
        [
            {"text": "Ann adopted a greyhound called Biscuit", "said_at": "2023-05-08T13:56:00Z"},
            "Bob started learning the cello in March",
            {"text": "Ann adopted a greyhound called Biscuit"},  # repeated in the same call
            {"text": "ok"},  # too short: refused, the rest still saved
            {"text": SECRET},
            {"text": "Ann's greyhound sleeps on the sofa", "conversation": "other chat", "tags": ["pets"]},
        ],
        conversation="chat-1",
    )
    assert (answer["saved"], answer["reinforced"], answer["refused"]) == (3, 1, 2)
    r = answer["results"]
    assert r[0]["saved"] and r[1]["saved"] and r[5]["saved"]
    assert r[2]["duplicate_of"] == r[0]["note"]["path"] and r[2]["reinforced"]
    assert "too short" in r[3]["error"] and "secret" in r[4]["error"]
    assert not any("sk-ant" in p.read_text() for p in empty_vault.rglob("*.md"))
    fm, body = frontmatter(empty_vault / r[0]["note"]["path"])
    assert fm["conversation"] == "chat-1" and str(fm["said_at"]).startswith("2023-05-08")
    assert body.strip() == "Ann adopted a greyhound called Biscuit"
    assert fm["use_count"] == 2  # reinforced by its repeat
    assert frontmatter(empty_vault / r[1]["note"]["path"])[0]["conversation"] == "chat-1"
    fm5, _ = frontmatter(empty_vault / r[5]["note"]["path"])
    assert fm5["conversation"] == "other chat" and fm5["tags"] == ["pets"]
    assert len(list((empty_vault / "STM").glob("*.md"))) == 3
    # indexed and searchable at once
    assert svc.search("cello")["results"][0]["path"] == r[1]["note"]["path"]
    # an exact twin of a stored memory reinforces it
    again = svc.save_many(["Bob started learning the cello in March"])
    assert again["reinforced"] == 1 and again["results"][0]["duplicate_of"] == r[1]["note"]["path"]
    svc.close()


@pytest.mark.parametrize(
    "items, message",
    [
        ([], "no memories"),
        ([{"text": "a fine memory to keep", "said_at": "yesterday-ish"}], "said_at"),
        ([{"text": "a fine memory to keep", "conversation": "two\nlines"}], "conversation"),
        ([{"text": "a fine memory to keep", "colour": "red"}], "unknown item field"),
    ],
)
def test_save_many_reports_bad_items(empty_vault, items, message):
    svc = make_service(empty_vault)
    if not items:
        with pytest.raises(InvalidInput, match=message):
            svc.save_many(items)
    else:
        answer = svc.save_many(items)
        assert answer["saved"] == 0 and message in answer["results"][0]["error"]
        assert not list(empty_vault.rglob("*.md"))
    svc.close()


def test_batch_encodes_once_and_leaves_nothing_to_backfill(empty_vault):
    from retrieval_set import shared_embedder

    from vault_sync.search.embeddings import missing_hashes

    svc = make_service(empty_vault, embeddings=True)
    embedder = shared_embedder()
    svc.use_embedder(embedder)
    svc.save("Melanie painted a sunrise over the lake last year")
    before = embedder.calls
    texts = [f"Caroline on {d} May 2023: the support group meeting number {d} was about pottery" for d in range(1, 31)]
    answer = svc.save_many(
        texts
        + ["Melanie painted a sunrise over the lake last year!", "Melanie painted 2 sunrises over the lake last year"]
    )
    assert answer["saved"] == 31 and answer["reinforced"] == 1
    assert embedder.calls - before <= 2  # one batch encode (+ at most the earlier save's backfill)
    assert missing_hashes(svc.engine, embedder.name) == []  # every new note got its vector from that call
    # the repeat check ran on that encode, against what was stored before: the same fact reinforces it
    repeat = answer["results"][30]
    assert repeat["reinforced"] and repeat["duplicate_of"].startswith("STM/Melanie painted a sunrise")
    assert repeat["message"].startswith(f"reinforced {repeat['note']['id']} (similarity 0.9")
    # and the near-duplicate check: a close text that is not the same fact (another number)
    near = answer["results"][31]["near_duplicates"]
    assert answer["results"][31]["saved"] and near and near[0]["path"] == repeat["duplicate_of"]
    calls = embedder.calls
    assert svc.search("pottery meeting 7")["results"]
    assert embedder.calls == calls + 1  # only the query was encoded
    svc.close()


def test_mcp_save_memories(empty_vault):
    svc = make_service(empty_vault)

    async def go():
        async with Client(build_mcp(lambda: svc)) as c:
            return await c.call_tool(
                "save_memories",
                {
                    "items": [{"text": "Ann adopted a greyhound called Biscuit"}, {"text": "no"}],
                    "conversation": "chat-9",
                },
            )

    result = asyncio.run(go())
    assert not result.is_error
    body = result.structured_content
    assert body["saved"] == 1 and body["refused"] == 1
    fm, _ = frontmatter(empty_vault / body["results"][0]["note"]["path"])
    assert fm["conversation"] == "chat-9"
    svc.close()


def test_mcp_save_memory_with_conversation(empty_vault):
    svc = make_service(empty_vault)

    async def go(args):
        async with Client(build_mcp(lambda: svc)) as c:
            return await c.call_tool("save_memory", args, raise_on_error=False)

    ok = asyncio.run(
        go(
            {
                "text": "Bob started learning the cello in March",
                "conversation": "chat-2",
                "said_at": "2023-06-03T10:02:00Z",
            }
        )
    )
    assert not ok.is_error
    path = ok.structured_content["note"]["path"]
    fm, _ = frontmatter(empty_vault / path)
    assert fm["conversation"] == "chat-2" and str(fm["said_at"]).startswith("2023-06-03")
    bad = asyncio.run(go({"text": "Bob started learning the viola in May", "said_at": "soon"}))
    assert bad.is_error and "said_at" in bad.content[0].text
    short = asyncio.run(go({"text": "ok", "conversation": "chat-2"}))
    assert short.is_error and "too short" in short.content[0].text
    twin = asyncio.run(go({"text": "Bob started learning the cello in March", "conversation": "chat-2"}))
    assert twin.structured_content["reinforced"] and twin.structured_content["duplicate_of"] == path
    assert len(list((empty_vault / "STM").glob("*.md"))) == 1
    svc.close()


def test_save_memories_and_save_said_take_supersedes(empty_vault):
    """An item's `supersedes` marks the old memories as save_memory's does; a bad
    ref refuses that item alone (nothing written for it); chains resolve to the newest."""
    (empty_vault / "Projects").mkdir()
    (empty_vault / "Projects" / "Plan.md").write_text("The person's own plan.\n", encoding="utf-8")
    svc = make_service(empty_vault)

    async def go():
        async with Client(build_mcp(lambda: svc)) as c:

            async def save(args):
                return (await c.call_tool("save_memory", args)).structured_content

            office_a = await save({"text": "The office is in Lisbon near the river", "title": "Office Lisbon"})
            editor = await save({"text": "Marta edits with Vim every day", "title": "Editor Vim"})
            before = sorted(p.relative_to(empty_vault).as_posix() for p in empty_vault.rglob("*.md"))
            batch = (
                await c.call_tool(
                    "save_memories",
                    {
                        "items": [
                            {
                                "text": "The office moved to Porto near the station",
                                "title": "Office Porto",
                                "supersedes": [office_a["note"]["id"]],
                            },
                            {"text": "Marta switched to Helix for editing", "supersedes": ["no such memory"]},
                            {
                                "text": "Marta edits with Vim every day",
                                "supersedes": [editor["note"]["path"]],
                            },  # its own text
                            {
                                "text": "The plan changed to ship in May",
                                "supersedes": ["Projects/Plan.md"],
                            },  # not a memory
                            {
                                "text": "Marta moved her desk to the window",
                                "supersedes": "STM/Editor Vim.md",
                            },  # not a list
                            {"text": "Lunch is at noon on Fridays"},
                        ]
                    },
                )
            ).structured_content
            r = batch["results"]
            assert (batch["saved"], batch["refused"]) == (2, 4)
            assert r[0]["saved"] and r[0]["superseded"] == [office_a["note"]["path"]]
            assert "not_found" in r[1]["error"] or "no memory" in r[1]["error"].lower()
            assert "already saved" in r[2]["error"] and "supersede with that note" in r[2]["error"]
            assert "only memories can be superseded" in r[3]["error"]
            assert "list" in r[4]["error"]
            assert r[5]["saved"] and "superseded" not in r[5]
            after = sorted(p.relative_to(empty_vault).as_posix() for p in empty_vault.rglob("*.md"))
            assert set(after) - set(before) == {r[0]["note"]["path"], r[5]["note"]["path"]}  # nothing for refused items
            old_fm, old_body = frontmatter(empty_vault / office_a["note"]["path"])
            assert old_fm["status"] == "superseded" and old_fm["superseded_by"] == "[[Office Porto]]"
            assert "Lisbon near the river" in old_body
            new_fm, _ = frontmatter(empty_vault / r[0]["note"]["path"])
            assert new_fm["supersedes"] == ["[[Office Lisbon]]"]
            assert frontmatter(empty_vault / editor["note"]["path"])[0]["status"] == "active"  # untouched

            # save_memory with a conversation and supersedes (save_said): allowed and marked; the chain resolves
            said = await save(
                {
                    "text": "The office moved again, to Braga",
                    "title": "Office Braga",
                    "conversation": "chat-9",
                    "said_at": "2026-11-01T10:00:00Z",
                    "supersedes": [r[0]["note"]["id"]],
                }
            )
            assert said["saved"] and said["superseded"] == [r[0]["note"]["path"]]
            fm, _ = frontmatter(empty_vault / said["note"]["path"])
            assert fm["conversation"] == "chat-9" and fm["supersedes"] == ["[[Office Porto]]"]
            found = (await c.call_tool("search_memory", {"query": "office"})).structured_content
            assert [h["path"] for h in found["results"]] == [said["note"]["path"]]
            every = (
                await c.call_tool("search_memory", {"query": "office", "include_superseded": True})
            ).structured_content
            assert {h["path"]: h.get("superseded_by") for h in every["results"]} == {
                said["note"]["path"]: None,
                r[0]["note"]["path"]: said["note"]["path"],
                office_a["note"]["path"]: said["note"]["path"],
            }  # the newest, not the next
            bad = await c.call_tool(
                "save_memory",
                {"text": "The office is now remote-first", "conversation": "chat-9", "supersedes": ["no such memory"]},
                raise_on_error=False,
            )
            assert bad.is_error and not (empty_vault / "STM" / "The office is now remote-first.md").exists()

    try:
        asyncio.run(go())
    finally:
        svc.close()


def test_title_repeating_the_first_words_is_embedded_once(empty_vault):
    """A saved memory's file name is its first words: the vector encodes the body alone, on
    the batch path and on the backfill path alike; a title of its own is still encoded."""
    import numpy as np
    from retrieval_set import shared_embedder

    from vault_sync.note import embed_text, title_repeats_body
    from vault_sync.search.embeddings import backfill, from_blob

    assert title_repeats_body("Caroline on 8 May 2023 I went to", "Caroline on 8 May 2023: I went to a group")
    assert not title_repeats_body("Plan", "# Plan\n\nShip it")  # a heading is a title a person chose
    assert not title_repeats_body("Support groups", "Caroline on 8 May 2023: I went to a group")
    assert not title_repeats_body("Caroline on 8 Ma", "Caroline on 8 May 2023: I went")  # whole words only
    assert title_repeats_body("Melanie painted a sunrise 2", "Melanie painted a sunrise again")  # a name taken twice
    assert embed_text("Plan", ["work"], "# Plan\n\nShip it") == "Plan\nwork\n# Plan\n\nShip it"
    assert embed_text("Ship it", ["work"], "Ship it today") == "work\nShip it today"

    svc = make_service(empty_vault, embeddings=True)
    embedder = shared_embedder()
    svc.use_embedder(embedder)
    said = "Caroline on 8 May 2023: I went to a support group yesterday and it was powerful"
    svc.save_many([said, {"text": "Melanie signed up for a pottery class", "title": "Hobbies"}])
    (empty_vault / "STM" / "written by hand.md").write_text(
        "Written by hand about the lake sunrise painting\n", encoding="utf-8"
    )
    svc.sync()
    backfill(svc.engine)

    def stored(prefix):
        row = svc.store.one("SELECT content_hash FROM notes WHERE path LIKE ?", (prefix + "%",))
        blob = svc.store.one("SELECT vector FROM embeddings WHERE content_hash = ?", (row[0],))[0]
        return from_blob(blob)

    def cos(a, b):
        return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))

    body_only, titled = embedder.encode([said, f"Caroline on 8 May 2023 I went to a\n\n{said}"])
    assert cos(stored("STM/Caroline on 8 May 2023"), body_only) > 0.9999
    assert cos(stored("STM/Caroline on 8 May 2023"), titled) < 0.999
    own_title = embedder.encode_one("Hobbies\n\nMelanie signed up for a pottery class")
    assert cos(stored("STM/Hobbies"), own_title) > 0.9999
    by_hand = embedder.encode_one("Written by hand about the lake sunrise painting")
    assert cos(stored("STM/written by hand"), by_hand) > 0.9999
    svc.close()
