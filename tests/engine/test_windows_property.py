"""Property: after any sequence of saves, edits, deletions, re-datings and moves between
conversations, each turn's conversation window in the index equals one computed here from
the vault's files alone, and the index equals a rebuild (index/windows.py)."""

from __future__ import annotations

import re
import shutil
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

from conftest import assert_index_matches_rebuild, make_service
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vault_sync.index import windows
from vault_sync.note import parse_note

START = datetime(2023, 5, 8, 10, 0, tzinfo=timezone.utc)
WORDS = ["museum", "vase", "cello", "train", "sister", "gondola", "invoice", "biscuit"]
CHATS = ["trip", "trip", "trip", "work"]  # mostly one conversation, so windows overlap

ops = st.lists(
    st.one_of(
        # save a few turns: (minute, word, chat) each; minutes repeat, so turns share moments
        st.tuples(
            st.just("save"),
            st.lists(
                st.tuples(st.integers(0, 8), st.sampled_from(WORDS), st.sampled_from(CHATS)), min_size=1, max_size=6
            ),
        ),
        st.tuples(st.just("edit"), st.integers(0, 30), st.sampled_from(WORDS)),
        st.tuples(st.just("delete"), st.integers(0, 30)),
        st.tuples(st.just("redate"), st.integers(0, 30), st.integers(0, 8)),
        st.tuples(st.just("rechat"), st.integers(0, 30), st.sampled_from(CHATS + ["none"])),
    ),
    min_size=2,
    max_size=12,
)


def _stamp(minute: int) -> str:
    return (START + timedelta(minutes=minute)).strftime("%Y-%m-%dT%H:%M:%SZ")


def expected_windows(vault: Path) -> dict[str, str]:
    """path -> window text, from the files: a turn's body with the bodies of the two turns
    said before and after it in its conversation (by time, then path), within 5 minutes."""
    turns: dict[str, list[tuple[datetime, str, str]]] = {}
    for f in sorted(vault.rglob("*.md")):
        rel = f.relative_to(vault).as_posix()
        note = parse_note(rel, f.read_bytes())
        chat, said = note.frontmatter.get("conversation"), note.frontmatter.get("said_at")
        if chat is None or said is None:
            continue
        when = said if isinstance(said, datetime) else datetime.fromisoformat(str(said).replace("Z", "+00:00"))
        turns.setdefault(str(chat), []).append((when.astimezone(timezone.utc), rel, note.body))
    out = {}
    for seq in turns.values():
        seq.sort(key=lambda t: (t[0], t[1]))
        for i, (when, rel, _) in enumerate(seq):
            near = seq[max(0, i - windows.NEIGHBOURS) : i + windows.NEIGHBOURS + 1]
            out[rel] = "\n".join(body for w, _, body in near if abs((w - when).total_seconds()) <= windows.WINDOW_S)
    return out


def _set_key(path: Path, key: str, value: str | None) -> None:
    text = path.read_text(encoding="utf-8")
    if value is None:
        text = re.sub(rf"(?m)^{key}: .*\n", "", text, count=1)
    else:
        text = re.sub(rf"(?m)^{key}: .*$", f"{key}: {value}", text, count=1)
    path.write_text(text, encoding="utf-8")


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops)
def test_windows_equal_the_ones_computed_from_the_files(steps):
    root = Path(tempfile.mkdtemp())
    vault = root / "vault"
    (vault / "STM").mkdir(parents=True)
    svc = make_service(vault)
    saved: list[str] = []
    n = 0
    try:
        for step in steps:
            kind = step[0]
            if kind == "save":
                items = []
                for minute, word, chat in step[1]:
                    n += 1
                    items.append(
                        {"text": f"turn {n} about the {word}", "conversation": chat, "said_at": _stamp(minute)}
                    )
                saved += [r["note"]["path"] for r in svc.save_many(items)["results"] if r.get("saved")]
                continue
            live = [p for p in saved if (vault / p).exists()]
            if not live:
                continue
            path = vault / live[step[1] % len(live)]
            if kind == "edit":
                path.write_text(path.read_text(encoding="utf-8") + f"\nand later the {step[2]}\n", encoding="utf-8")
            elif kind == "delete":
                path.unlink()
            elif kind == "redate":
                _set_key(path, "said_at", _stamp(step[2]))
            else:
                _set_key(path, "conversation", None if step[2] == "none" else step[2])
            svc.sync()
        want = expected_windows(vault)
        with svc.store.reading() as db:
            got = {r["path"]: windows.row_of(db, r["rowid"]) for r in svc.store.query("SELECT rowid, path FROM notes")}
        assert {p: w for p, w in got.items() if w is not None} == want
        assert_index_matches_rebuild(svc)
    finally:
        svc.close()
        shutil.rmtree(root, ignore_errors=True)
