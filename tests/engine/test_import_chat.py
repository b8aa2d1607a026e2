"""`mnemovault import chat`: chat histories (JSON lines, conversation objects, ChatGPT's
conversations.json) imported one memory per message, each with its conversation and the time
it was said. Real files written here, a real vault and index, a fixed clock."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import assert_index_matches_rebuild, make_service
from typer.testing import CliRunner

from bridge.cli import app
from vault_sync.fmblock import find_block, load_yaml
from vault_sync.index import queries
from vault_sync.limits import MAX_TEXT_CHARS
from vault_sync.transfer import BadSource

# a few minutes before the fixed clock (2026-11-20 12:00 UTC): one conversation's turns
T = int(datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc).timestamp())


def iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def memories(vault: Path) -> dict[str, tuple[dict, str, str]]:
    """source_id -> (frontmatter, body, path) of every imported note."""
    out = {}
    for p in vault.rglob("*.md"):
        text = p.read_text(encoding="utf-8")
        block = find_block(text)
        fm = load_yaml(text[block.yaml_start : block.yaml_end]) if block else {}
        if fm and "source_id" in fm:
            out[str(fm["source_id"])] = (fm, text[block.body_start :].strip(), p.relative_to(vault).as_posix())
    return out


def files(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*")) if p.is_file()}


def write_lines(path: Path, records: list) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def node(nid, parent, children, role=None, text=None, at=None, content_type="text", **message):
    msg = None
    if role is not None:
        msg = {
            "id": nid,
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": at,
            "content": {"content_type": content_type, "parts": text if isinstance(text, list) else [text]},
            "status": "finished_successfully",
            "recipient": "all",
            **message,
        }
    return {"id": nid, "message": msg, "parent": parent, "children": children}


def chatgpt_conversation() -> dict:
    """A conversation in which the first answer was regenerated: `a1` is the discarded answer
    on a side branch, `a2` the one the person kept (`current_node` ends that branch)."""
    mapping = {
        n["id"]: n
        for n in [
            node("root", None, ["sys"]),
            node(
                "sys", "root", ["ctx"], "system", "", at=None, metadata={"is_visually_hidden_from_conversation": True}
            ),
            node(
                "ctx",
                "sys",
                ["u1"],
                "user",
                None,
                content_type="user_editable_context",
                metadata={"is_visually_hidden_from_conversation": True},
            ),
            node("u1", "ctx", ["a1", "a2"], "user", "Which sourdough starter ratio should I feed on weekdays?", at=T),
            node("a1", "u1", [], "assistant", "A discarded answer: feed it rye flour only, twice a day.", at=T + 30),
            node(
                "a2", "u1", ["t1"], "assistant", "Feed it one part starter, five parts flour and water each.", at=T + 60
            ),
            node(
                "t1",
                "a2",
                ["tool"],
                "assistant",
                "search('starter')",
                at=T + 61,
                content_type="code",
                recipient="browser",
            ),
            node("tool", "t1", ["u2"], "tool", "results of the search", at=T + 62),
            node(
                "u2",
                "tool",
                ["a3"],
                "user",
                [
                    {"asset_pointer": "file-service://x", "content_type": "image_asset_pointer"},
                    "Here is a photo of the jar after a night on the counter.",
                ],
                at=T + 120,
                content_type="multimodal_text",
            ),
            node("a3", "u2", [], "assistant", "That rise looks right; bake with it in the morning.", at=T + 150),
        ]
    }
    return {
        "id": "gpt-1",
        "conversation_id": "gpt-1",
        "title": "Sourdough",
        "create_time": T - 5,
        "current_node": "a3",
        "mapping": mapping,
    }


# -- the three shapes --
def test_json_lines_each_message_one_memory_with_conversation_and_said_at(empty_vault, tmp_path):
    src = write_lines(
        tmp_path / "chat.jsonl",
        [
            {
                "conversation": "trip",
                "speaker": "Ann",
                "text": "Did you get to the glassblowing museum on Murano?",
                "said_at": iso(T),
                "id": "m1",
            },
            {
                "conversation": "trip",
                "role": "assistant",
                "content": "Yes, and I came home with a blue vase.",
                "timestamp": T + 60,
            },
            {
                "conversation": "work",
                "speaker": "Bob",
                "text": "The invoices are due on Friday morning.",
                "said_at": "2026-11-20T10:30:00+01:00",
            },
        ],
    )
    svc = make_service(empty_vault)
    r = svc.import_memories("chat", src)
    assert (r["created"], r["refused"]) == (3, 0)
    got = memories(empty_vault)
    assert set(got) == {"trip:m1", "trip:2", "work:1"}  # a message without an id: its place in its conversation
    fm, body, path = got["trip:2"]
    assert body == "Assistant: Yes, and I came home with a blue vase."  # a role is capitalised
    assert (fm["conversation"], fm["said_at"], fm["source"]) == (
        "trip",
        datetime.fromtimestamp(T + 60, timezone.utc),
        "chat",
    )
    assert fm["created"] == fm["last_used"] == fm["said_at"]
    assert got["trip:m1"][1] == "Ann: Did you get to the glassblowing museum on Murano?"
    # said_at written in UTC, as save_many writes it
    assert "said_at: 2026-11-20T09:30:00Z" in (empty_vault / got["work:1"][2]).read_text(encoding="utf-8")
    row = svc.store.note(path)
    assert (row["conversation"], row["said_at"]) == ("trip", iso(T + 60))
    assert svc.store.note(got["work:1"][2])["said_at"] == "2026-11-20T09:30:00Z"
    assert_index_matches_rebuild(svc)
    # a second import of the same file adds nothing and changes nothing
    before = files(empty_vault)
    again = svc.import_memories("chat", src)
    assert (again["created"], again["skipped"], again["reinforced"]) == (0, 3, 0)
    assert files(empty_vault) == before
    svc.close()


def test_conversation_objects_alone_or_in_a_list(empty_vault, tmp_path):
    one = {
        "id": "c-7",
        "title": "Plants",
        "messages": [
            {"speaker": "Ann", "text": "The fern by the window needs water every Sunday.", "said_at": T},
            {
                "role": "user",
                "content": "And the cactus only once a month in winter.",
                "timestamp": iso(T + 40),
                "id": 99,
            },
        ],
    }
    (tmp_path / "one.json").write_text(json.dumps(one, indent=2), encoding="utf-8")  # pretty-printed
    many = [
        {
            "conversation": "c-8",
            "messages": [{"speaker": "Bob", "text": "My bike's rear tyre keeps going flat.", "said_at": T + 5}],
        },
        one,
    ]
    (tmp_path / "many.json").write_text(json.dumps(many), encoding="utf-8")
    svc = make_service(empty_vault)
    assert svc.import_memories("chat", tmp_path / "one.json")["created"] == 2
    got = memories(empty_vault)
    assert set(got) == {"c-7:1", "c-7:99"}
    assert got["c-7:99"][1] == "User: And the cactus only once a month in winter."
    assert got["c-7:1"][0]["conversation"] == "c-7" and svc.store.note(got["c-7:1"][2])["said_at"] == iso(T)
    # the same conversation again inside a list: only the new one is imported
    r = svc.import_memories("chat", tmp_path / "many.json")
    assert (r["created"], r["skipped"]) == (1, 2)
    assert memories(empty_vault)["c-8:1"][1] == "Bob: My bike's rear tyre keeps going flat."
    svc.close()


def test_chatgpt_export_follows_the_kept_branch(empty_vault, tmp_path):
    src = tmp_path / "conversations.json"
    src.write_text(json.dumps([chatgpt_conversation()]), encoding="utf-8")
    svc = make_service(empty_vault)
    r = svc.import_memories("chat", src)
    got = memories(empty_vault)
    # the regenerated answer's discarded version, the system and tool messages, the hidden
    # custom instructions and the assistant's call to a tool are not imported
    assert set(got) == {"gpt-1:u1", "gpt-1:a2", "gpt-1:u2", "gpt-1:a3"} and r["created"] == 4
    assert not any("discarded" in body for _, body, _ in got.values())
    assert got["gpt-1:a2"][1] == "Assistant: Feed it one part starter, five parts flour and water each."
    assert got["gpt-1:u2"][1] == "User: Here is a photo of the jar after a night on the counter."  # the image left out
    fm, _, path = got["gpt-1:a3"]
    assert (fm["conversation"], fm["said_at"]) == ("gpt-1", datetime.fromtimestamp(T + 150, timezone.utc))
    assert (svc.store.note(path)["conversation"], svc.store.note(path)["said_at"]) == ("gpt-1", iso(T + 150))
    assert svc.import_memories("chat", src)["created"] == 0
    svc.close()


def test_a_folder_reads_every_chat_file_and_passes_over_the_export_companions(empty_vault, tmp_path):
    src = tmp_path / "export"
    src.mkdir()
    (src / "conversations.json").write_text(json.dumps([chatgpt_conversation()]), encoding="utf-8")
    (src / "user.json").write_text(json.dumps({"id": "user-1", "email": "a@example.org"}), encoding="utf-8")
    write_lines(
        src / "team.jsonl",
        [{"conversation": "t", "speaker": "Cy", "text": "Standup moves to half past nine.", "said_at": T}],
    )
    svc = make_service(empty_vault)
    assert svc.import_memories("chat", src)["created"] == 5
    assert "t:1" in memories(empty_vault)
    svc.close()


# -- bad input: everything refused, naming where --
def test_a_bad_line_refuses_the_whole_file_naming_each(empty_vault, tmp_path):
    src = write_lines(
        tmp_path / "chat.jsonl",
        [
            {"conversation": "a", "speaker": "Ann", "text": "A perfectly good message about the garden.", "said_at": T},
            {"conversation": "a", "speaker": "Ann", "said_at": T},
            "{not json",
            {"speaker": "Ann", "text": "A message that belongs to no conversation at all."},
            {
                "conversation": "a",
                "speaker": "Ann",
                "text": "A message said at no real time at all.",
                "said_at": "soon",
            },
            {
                "conversation": "a",
                "speaker": "Ann",
                "text": "A message said at the calendar's edge.",
                "said_at": "0001-01-01T00:00:00+05:00",
            },
        ],
    )
    svc = make_service(empty_vault)
    before = files(empty_vault)
    with pytest.raises(BadSource) as err:
        svc.import_memories("chat", src)
    assert [p.split(":")[0] for p in err.value.problems] == [f"chat.jsonl line {n}" for n in (2, 3, 4, 5, 6)]
    assert "no `text`" in err.value.problems[0] and "not a date" in err.value.problems[3]
    assert "out of range" in err.value.problems[4]
    assert files(empty_vault) == before and queries.all_paths(svc.store) == []
    svc.close()


def test_a_bad_message_names_its_conversation_and_place(empty_vault, tmp_path):
    conv = {
        "id": "c1",
        "messages": [
            {"speaker": "Ann", "text": "The boiler service is booked for May."},
            {"speaker": "Ann\nEve", "text": "Two speakers on one line is not a name."},
        ],
    }
    gpt = chatgpt_conversation()
    gpt["mapping"]["a2"]["message"]["content"]["parts"] = "not a list"
    broken = chatgpt_conversation() | {"id": "gpt-2", "current_node": "gone"}
    src = tmp_path / "c.json"
    src.write_text(json.dumps([conv, gpt, broken]), encoding="utf-8")
    svc = make_service(empty_vault)
    with pytest.raises(BadSource) as err:
        svc.import_memories("chat", src)
    problems = err.value.problems
    assert problems[0].startswith("c.json conversation 1 ('c1') message 2: speaker")
    # a2 is the fourth message on the kept branch (system, custom instructions, question, answer)
    assert problems[1] == "c.json conversation 2 ('gpt-1') message 4: `content.parts` is not a list"
    assert problems[2].startswith("c.json conversation 3: `current_node` 'gone'")
    assert len(problems) == 3 and files(empty_vault) == {}
    svc.close()


def test_a_file_that_is_no_chat_is_refused_clearly(empty_vault, tmp_path):
    svc = make_service(empty_vault)
    (tmp_path / "notes.json").write_text(json.dumps([{"memory": "x"}]), encoding="utf-8")
    (tmp_path / "plain.txt").write_text("Ann: hello there\n", encoding="utf-8")
    with pytest.raises(BadSource, match=r"conversation 1: not a conversation"):
        svc.import_memories("chat", tmp_path / "notes.json")
    with pytest.raises(BadSource, match=r"plain.txt: not a chat history; expected JSON lines"):
        svc.import_memories("chat", tmp_path / "plain.txt")
    svc.close()


def test_the_gate_refuses_short_long_and_secret_messages_and_keeps_the_rest(empty_vault, tmp_path):
    secret = "Our deploy key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG for the bot"
    src = write_lines(
        tmp_path / "chat.jsonl",
        [
            {"conversation": "a", "speaker": "Ann", "text": "ok", "said_at": T},
            {"conversation": "a", "speaker": "Ann", "text": "word " * (MAX_TEXT_CHARS // 5), "said_at": T + 1},
            {"conversation": "a", "speaker": "Ann", "text": secret, "said_at": T + 2},
            {
                "conversation": "a",
                "speaker": "Ann",
                "text": "The spare key is under the blue flower pot.",
                "said_at": T + 3,
            },
        ],
    )
    svc = make_service(empty_vault)
    r = svc.import_memories("chat", src)
    assert r["created"] == 1 and set(memories(empty_vault)) == {"a:4"}
    causes = {x["where"]: x["cause"] for x in r["refusals"]}
    assert "too short" in causes["chat.jsonl line 1"] and "too long for one memory" in causes["chat.jsonl line 2"]
    assert "secret" in causes["chat.jsonl line 3"].lower() and "sk-ant" not in causes["chat.jsonl line 3"]
    svc.close()


def test_dry_run_writes_nothing(empty_vault, tmp_path):
    src = tmp_path / "conversations.json"
    src.write_text(json.dumps([chatgpt_conversation()]), encoding="utf-8")
    svc = make_service(empty_vault)
    before = files(empty_vault)
    r = svc.import_memories("chat", src, dry_run=True)
    assert r["dry_run"] and r["created"] == 4 and r["paths"] == []
    assert [c["id"] for c in r["would_create"]] == ["gpt-1:u1", "gpt-1:a2", "gpt-1:u2", "gpt-1:a3"]
    assert files(empty_vault) == before and queries.all_paths(svc.store) == []
    assert svc.import_memories("chat", src)["created"] == 4  # and the real run still imports all
    svc.close()


def test_cli_lists_and_imports_chat(empty_vault, tmp_path):
    src = write_lines(
        tmp_path / "chat.jsonl",
        [{"conversation": "a", "speaker": "Ann", "text": "The recycling goes out on Tuesday nights.", "said_at": T}],
    )
    runner = CliRunner()
    assert "chat" in runner.invoke(app, ["import", "--help"]).output
    res = runner.invoke(app, ["import", "chat", str(src), "--vault", str(empty_vault), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["created"] == 1 and "a:1" in memories(empty_vault)


# -- search reads an imported turn with its neighbours --
def test_an_imported_reply_is_found_through_the_turn_before_it(empty_vault, tmp_path):
    src = write_lines(
        tmp_path / "chat.jsonl",
        [
            {
                "conversation": "trip",
                "speaker": "Ann",
                "text": "Did you finally get to the glassblowing museum on Murano?",
                "said_at": T,
            },
            {
                "conversation": "trip",
                "speaker": "Bo",
                "text": "Yes, I went there yesterday and came home with a blue vase.",
                "said_at": T + 60,
            },
            {
                "conversation": "work",
                "speaker": "Bo",
                "text": "Yes, I went there yesterday and sorted out the invoices.",
                "said_at": T + 60,
            },
        ],
    )
    svc = make_service(empty_vault)
    svc.import_memories("chat", src)
    got = memories(empty_vault)
    found = [r["path"] for r in svc.search("glassblowing museum Murano")["results"]]
    # the reply holds none of the query's words: it is found through the question before it,
    # and the same words said in another conversation are not
    assert found[:2] == [got["trip:1"][2], got["trip:2"][2]]
    assert got["work:1"][2] not in found
    svc.close()


def test_the_import_docs_chat_example_imports_as_documented(empty_vault, tmp_path):
    doc = (Path(__file__).resolve().parent.parent.parent / "docs" / "import.md").read_text(encoding="utf-8")
    section = doc[doc.index("- `chat` — a chat history") :]
    block = section[section.index("```\n") + 4 : section.index("\n  ```", section.index("```\n"))]
    src = tmp_path / "example.jsonl"
    src.write_text("\n".join(line.strip() for line in block.splitlines()) + "\n", encoding="utf-8")
    svc = make_service(empty_vault)
    assert svc.import_memories("chat", src)["created"] == 2
    got = memories(empty_vault)
    assert got["trip:m2"][1] == "Assistant: Yes, and I bought a vase."
    assert [svc.store.note(got[k][2])["said_at"] for k in ("trip:1", "trip:m2")] == [
        "2026-05-08T10:00:00Z",
        "2026-05-08T10:01:00Z",
    ]
    svc.close()


def test_a_conversation_id_that_is_no_plain_line_refuses_the_source(empty_vault, tmp_path):
    secret_id = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"
    src = write_lines(
        tmp_path / "chat.jsonl",
        [
            {"conversation": "a\u202eb", "speaker": "Ann", "text": "A message in a conversation with a bidi id."},
            {"conversation": secret_id, "speaker": "Ann", "text": "A message in a conversation named by a key."},
            {"conversation": "x" * 201, "speaker": "Ann", "text": "A message in a conversation with a long id."},
        ],
    )
    svc = make_service(empty_vault)
    with pytest.raises(BadSource) as err:
        svc.import_memories("chat", src)
    assert [p.split(":")[0] for p in err.value.problems] == [f"chat.jsonl line {n}" for n in (1, 2, 3)]
    assert "sk-ant" not in str(err.value) and files(empty_vault) == {}
    svc.close()


def test_a_chatgpt_tree_that_cannot_be_followed_is_named(empty_vault, tmp_path):
    loop = chatgpt_conversation() | {"id": "loop"}
    loop["mapping"]["root"]["parent"] = "a3"  # the root's parent is the last answer: a loop
    orphan = chatgpt_conversation() | {"id": None, "conversation_id": "orphan"}  # the id under its other name
    orphan["mapping"]["u2"]["parent"] = "lost"
    ok = chatgpt_conversation() | {"id": "ok"}
    del ok["mapping"]["a3"]["message"]["create_time"]  # no time of its own: the conversation's
    src = tmp_path / "conversations.json"
    src.write_text(json.dumps([loop, orphan]), encoding="utf-8")
    svc = make_service(empty_vault)
    with pytest.raises(BadSource) as err:
        svc.import_memories("chat", src)
    assert err.value.problems == [
        "conversations.json conversation 1: its nodes form a loop at 'a3'",
        "conversations.json conversation 2: a node's parent 'lost' is not in `mapping`",
    ]
    src.write_text(json.dumps([ok]), encoding="utf-8")
    assert svc.import_memories("chat", src)["created"] == 4
    assert memories(empty_vault)["ok:a3"][0]["said_at"] == datetime.fromtimestamp(T - 5, timezone.utc)
    svc.close()
