"""Owned keys: archive and restore refresh the score and due dates;
capitalised owned keys a person wrote are read, reported, and written back in place, never
duplicated."""

from __future__ import annotations

from datetime import timedelta

import yaml
from conftest import FIXED_NOW, make_service

from vault_sync.ageing import Facts, memory_score
from vault_sync.due import due_dates

LAST = FIXED_NOW - timedelta(days=20)


def fm_of(path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])


def memory(path, extra: str = "") -> None:
    path.write_text(
        "---\nid: m-owned-1\ncreated: 2026-10-01T09:00:00Z\nlast_used: "
        + LAST.strftime("%Y-%m-%dT%H:%M:%SZ")
        + "\nuse_count: 2\nstrength: 1.0\nstatus: active\ndecay_score: 0.97\nreview_priority: 0.01\n"
        "review_on: 2030-01-01\narchive_on: 2031-01-01\n"
        + extra
        + "---\n# Owned\n\nA memory whose written score is stale.\n",
        encoding="utf-8",
    )


def test_archive_and_restore_refresh_the_owned_keys(empty_vault):
    memory(empty_vault / "STM" / "Owned.md")
    svc = make_service(empty_vault)
    prec = svc.settings.score_precision
    svc.archive("m-owned-1")
    fm = fm_of(empty_vault / "Archive" / "Owned.md")
    # the score as of the archiving, not the stale 0.97; no due dates in the archive
    assert fm["decay_score"] == round(memory_score(svc.params, Facts(2, 1.0, LAST), FIXED_NOW), prec) != 0.97
    assert fm["status"] == "archived" and "review_on" not in fm and "archive_on" not in fm

    svc.restore("m-owned-1")
    fm = fm_of(empty_vault / "STM" / "Owned.md")
    fresh = round(memory_score(svc.params, Facts(2, 1.0, FIXED_NOW), FIXED_NOW), prec)
    want = due_dates(svc.params, 2, 1.0, FIXED_NOW)
    assert fm["status"] == "active" and fm["decay_score"] == fresh
    assert (
        str(fm["review_on"]) == want["review_on"].isoformat()
        and str(fm["archive_on"]) == want["archive_on"].isoformat()
    )
    assert svc.note("m-owned-1")["decay_score"] == fresh
    svc.close()


CAPS = (
    "---\nID: m-caps-1\nCreated: 2026-10-01T09:00:00Z\nLast_Used: "
    + LAST.strftime("%Y-%m-%dT%H:%M:%SZ")
    + "\nUSE_COUNT: 5\nTags: [ops, db]\nStatus: active\nDecay_Score: 0.97   # written by hand\nmood: calm\n"
    "---\n# Caps\n\nA memory whose keys a person wrote with capitals.\n"
)


def test_capitalised_owned_keys_are_read_reported_and_written_in_place(empty_vault):
    path = empty_vault / "STM" / "Caps.md"
    path.write_text(CAPS, encoding="utf-8")
    svc = make_service(empty_vault)
    note = svc.note("STM/Caps.md")
    assert note["id"] == "m-caps-1" and note["use_count"] == 5 and sorted(note["tags"]) == ["db", "ops"]
    assert any("Decay_Score: read as decay_score" in p for p in note["problems"])
    assert any(
        p["path"] == "STM/Caps.md" and "USE_COUNT: read as use_count" in p["cause"] for p in svc.status()["problems"]
    )

    report = svc.sweep(full=True)
    assert report["written"] == 1
    after = path.read_text(encoding="utf-8")
    fm = fm_of(path)
    keys = [k.lower() for k in fm]
    assert len(keys) == len(set(keys))  # no owned key twice in two spellings
    want = round(memory_score(svc.params, Facts(5, 1.0, LAST), FIXED_NOW), svc.settings.score_precision)
    assert fm["Decay_Score"] == want and "decay_score" not in fm and fm["USE_COUNT"] == 5
    # every line the sweep did not own is byte for byte what the person wrote
    old_lines, new_lines = CAPS.splitlines(keepends=True), after.splitlines(keepends=True)
    kept = [ln for ln in old_lines if not ln.startswith("Decay_Score:")]
    assert [ln for ln in new_lines if ln in kept] == kept
    changed = [ln for ln in new_lines if ln not in old_lines]
    assert all(ln.split(":")[0] in ("Decay_Score", "review_priority", "review_on", "archive_on") for ln in changed), (
        changed
    )
    assert svc.sweep(full=True)["written"] == 0  # and the next sweep finds it current
    svc.close()


def test_two_spellings_of_one_owned_key_block_writes(empty_vault):
    path = empty_vault / "STM" / "Twice.md"
    text = CAPS.replace("mood: calm\n", "decay_score: 0.5\nmood: calm\n")
    path.write_text(text, encoding="utf-8")
    svc = make_service(empty_vault)
    assert any(
        "decay_score, Decay_Score: one key written several ways" in p for p in svc.note("STM/Twice.md")["problems"]
    )
    svc.sweep(full=True)
    assert path.read_text(encoding="utf-8") == text
    svc.close()
