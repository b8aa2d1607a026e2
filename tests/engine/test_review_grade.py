"""Graded review: a bounded effect (never a promotion candidate by itself) and an exact undo."""

from __future__ import annotations

from datetime import timedelta, timezone

import pytest
from conftest import FIXED_NOW, assert_index_matches_rebuild, make_service

from vault_sync.errors import InvalidInput, WrongState
from vault_sync.ops.lifecycle import promote_candidates

# (use_count, strength, days since last use) -> score before, after "remember", after "fade",
# at FIXED_NOW with the default power-law model (promote threshold 0.65, danger zone 0.15-0.35)
GOLDEN = [
    ((3, 1.0, 20.0), 0.2327, 0.5000, 0.1485),  # in the danger zone: out of it, below promotion
    ((1, 1.0, 5.0), 0.3710, 0.5000, 0.1485),
    ((1, 0.4, 1.0), 0.3016, 0.4000, 0.1485),  # its best (a use now) is 0.4: no higher
    ((8, 2.0, 60.0), 0.2802, 0.5000, 0.1485),  # 8 uses, strength 2: a touch would give 7.0
    ((2, 1.0, 1.0), 1.1429, 1.1429, 0.1485),  # already above the target: never lowered by "remember"
    ((1, 1.0, 40.0), 0.0610, 0.5000, 0.0610),  # already below the zone: never raised by "fade"
]


@pytest.fixture
def svc(empty_vault):
    s = make_service(empty_vault)
    yield s
    s.close()


def _memory(svc, i: int, use_count: int, strength: float, days: float) -> str:
    when = FIXED_NOW - timedelta(days=days)
    view = svc.create_memory(
        f"Memory number {i} about topic {i}.",
        title=f"Memory {i}",
        strength=strength,
        use_count=use_count,
        created=when - timedelta(days=30),
        last_used=when,
    )
    return view["path"]


@pytest.mark.parametrize("grade,column", [("remember", 2), ("fade", 3)])
def test_golden_table_of_scores_per_grade(svc, empty_vault, grade, column):
    paths = [_memory(svc, i, *row[0]) for i, row in enumerate(GOLDEN)]
    svc.sweep(full=True)
    candidates_before = {c["path"] for c in promote_candidates(svc.engine)}
    got = []
    for path, row in zip(paths, GOLDEN):
        out = svc.review_memory(path, grade)
        got.append((row[0], round(out["old_score"], 4), round(out["new_score"], 4)))
        note = svc.store.note(path)
        assert note["use_count"] == row[0][0] and note["strength"] == row[0][1]  # a review is not a use
    assert got == [(row[0], row[1], row[column]) for row in GOLDEN]
    # never a promotion candidate because of a review: the candidates are the ones before
    assert {c["path"] for c in promote_candidates(svc.engine)} <= candidates_before
    report = svc.run_lifecycle()
    assert {m["from"] for m in report.get("promote", {}).get("promoted", [])} <= candidates_before
    assert_index_matches_rebuild(svc)


def test_remember_takes_a_fading_memory_out_of_the_queue_not_to_ltm(svc):
    path = _memory(svc, 0, 3, 1.0, 20.0)
    assert [n["path"] for n in svc.review()] == [path]
    out = svc.review_memory(path, "remember")
    assert out["new_score"] < svc.params.promote_threshold
    assert svc.review() == [] and promote_candidates(svc.engine) == []
    later = make_service(svc.settings.vault, now=FIXED_NOW + timedelta(days=3), sync=False)
    try:  # it decays from there like any memory, back into the queue, never up to LTM
        assert later.run_lifecycle().get("promote", {}).get("promoted", []) == []
    finally:
        later.close()


def test_undo_review_writes_back_exactly_the_bytes_before(svc, empty_vault):
    path = _memory(svc, 0, 3, 1.0, 20.0)
    svc.sweep(full=True)
    before = (empty_vault / path).read_bytes()
    for grade in ("remember", "fade"):
        out = svc.review_memory(path, grade)
        assert (empty_vault / path).read_bytes() != before
        svc.undo_review(path, out["prior"], out["after"])
        assert (empty_vault / path).read_bytes() == before
    assert_index_matches_rebuild(svc)


def test_undo_review_refuses_when_the_memory_changed_since(svc, empty_vault):
    path = _memory(svc, 0, 3, 1.0, 20.0)
    out = svc.review_memory(path, "remember")
    svc.touch(path)
    used = (empty_vault / path).read_bytes()
    with pytest.raises(WrongState, match="changed since the review"):
        svc.undo_review(path, out["prior"], out["after"])
    assert (empty_vault / path).read_bytes() == used


def test_bad_grade_and_bad_prior_are_refused_and_change_nothing(svc, empty_vault):
    path = _memory(svc, 0, 3, 1.0, 20.0)
    before = (empty_vault / path).read_bytes()
    with pytest.raises(InvalidInput, match="grade"):
        svc.review_memory(path, "easy")
    out = svc.review_memory(path, "fade")
    after_review = (empty_vault / path).read_bytes()
    for bad in (
        {**out["prior"], "last_used": "yesterday"},
        {**out["prior"], "use_count": 9},
        {k: v for k, v in out["prior"].items() if k != "decay_score"},
        {**out["prior"], "review_on": "soon"},
    ):
        with pytest.raises(InvalidInput):
            svc.undo_review(path, bad, out["after"])
    assert (empty_vault / path).read_bytes() == after_review != before


def test_undo_of_archive_restores_exactly_and_is_not_a_use(svc, empty_vault):
    path = _memory(svc, 0, 3, 1.0, 20.0)
    svc.sweep(full=True)
    before = (empty_vault / path).read_bytes()
    moved = svc.archive(path)
    assert not (empty_vault / path).exists()
    back = svc.restore(moved["to"], prior=moved["prior"])
    assert back["to"] == path
    assert (empty_vault / path).read_bytes() == before
    assert [n["path"] for n in svc.review()] == [path]  # still due: an undo is not a use
    assert_index_matches_rebuild(svc)


def test_http_grade_undo_and_archive_undo_over_the_daemon(daemon, vault):
    """The bridge routes on a real daemon: grade, undo, archive then restore with its prior."""
    item = daemon.get("/api/review", {"limit": 50}).json()["items"][0]
    rel = item["path"]
    before = (vault / rel).read_bytes()
    graded = daemon.post("/api/grade", {"ref": rel, "grade": "remember"})
    assert graded.status_code == 200, graded.text
    body = graded.json()
    assert body["new_score"] < 0.65 and body["note"]["use_count"] == item["use_count"]
    bad = daemon.post("/api/grade", {"ref": rel, "grade": "easy"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid"
    undone = daemon.post("/api/ungrade", {"ref": rel, "prior": body["prior"], "after": body["after"]})
    assert undone.status_code == 200, undone.text
    assert (vault / rel).read_bytes() == before
    again = daemon.post("/api/ungrade", {"ref": rel, "prior": body["prior"], "after": body["after"]})
    assert again.status_code == 409  # it holds `prior` now, not `after`: nothing to undo
    moved = daemon.post("/api/archive", {"ref": rel}).json()["archived"][0]
    back = daemon.post("/api/restore", {"ref": moved["to"], "prior": moved["prior"]})
    assert back.status_code == 200, back.text
    assert (vault / rel).read_bytes() == before


def test_cli_review_grade(svc, empty_vault):
    import json

    from typer.testing import CliRunner

    from bridge.cli import app

    path = _memory(svc, 0, 3, 1.0, 20.0)
    r = CliRunner().invoke(app, ["review", path, "--grade", "remember", "--vault", str(empty_vault), "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["grade"] == "remember" and out["note"]["use_count"] == 3
    assert out["new_score"] <= max(out["old_score"], 0.5) + 1e-6
    bad = CliRunner().invoke(app, ["review", "--grade", "fade", "--vault", str(empty_vault)])
    assert bad.exit_code != 0 and "together" in bad.output


def _spelled_by_hand(svc, empty_vault) -> str:
    """A memory as a person (or another tool) spells it: an offset instead of Z, 0.250, 1.000."""
    path = _memory(svc, 0, 3, 1.0, 20.0)
    svc.sweep(full=True)
    note = empty_vault / path
    when = (FIXED_NOW - timedelta(days=20)).astimezone(timezone(timedelta(hours=1)))
    text = note.read_text()
    lines = []
    for line in text.splitlines(keepends=True):
        if line.startswith("last_used:"):
            line = f"last_used: {when.isoformat()}  # by hand\n"
        elif line.startswith("decay_score:"):
            line = "decay_score: 0.250\n"
        elif line.startswith("review_priority:"):
            line = "review_priority: 1.000\n"
        lines.append(line)
    note.write_text("".join(lines))
    svc.sync()
    return path


@pytest.mark.parametrize("grade", ["remember", "fade"])
def test_undo_review_puts_back_the_persons_spelling(svc, empty_vault, grade):
    path = _spelled_by_hand(svc, empty_vault)
    before = (empty_vault / path).read_bytes()
    assert b"+01:00  # by hand" in before and b"0.250" in before
    out = svc.review_memory(path, grade)
    assert out["prior"]["as_written"]["decay_score"] == "0.250"
    assert (empty_vault / path).read_bytes() != before
    svc.undo_review(path, out["prior"], out["after"])
    assert (empty_vault / path).read_bytes() == before
    assert_index_matches_rebuild(svc)


def test_archive_undo_puts_back_the_persons_spelling(svc, empty_vault):
    path = _spelled_by_hand(svc, empty_vault)
    before = (empty_vault / path).read_bytes()
    moved = svc.archive(path)
    back = svc.restore(moved["to"], prior=moved["prior"])
    assert back["to"] == path and (empty_vault / path).read_bytes() == before


def test_a_spelling_that_reads_otherwise_is_refused(svc, empty_vault):
    path = _spelled_by_hand(svc, empty_vault)
    out = svc.review_memory(path, "fade")
    after_review = (empty_vault / path).read_bytes()
    for forged in ({"decay_score": "0.9"}, {"last_used": "2026-01-01T00:00:00Z"}, {"decay_score": "0.25\nx: 1"}):
        with pytest.raises(InvalidInput, match="as_written"):
            svc.undo_review(path, {**out["prior"], "as_written": forged}, out["after"])
    assert (empty_vault / path).read_bytes() == after_review


# the tail of a memory's frontmatter as a person wrote it: comments and blank lines beside the
# due dates, which archive removes and its undo puts back
TAILS = [
    "review_on: {r}\narchive_on: {a}\n# my comment\n",  # the last key goes back above the comment
    "review_on: {r}\n# between\narchive_on: {a}\n",  # one key above, one below
    "review_on: {r}\narchive_on: {a}\n\n# same\n# same\n",  # a blank line, a comment twice
    "# same\nreview_on: {r}\n# same\narchive_on: {a}\n# same\n",  # the same comment around each
    "review_on: {r}\r\n# a note written with CRLF\r\narchive_on: {a}\r\n",
]


def _with_tail(svc, empty_vault, tail: str) -> str:
    path = _memory(svc, 0, 3, 1.0, 20.0)
    svc.sweep(full=True)
    note = empty_vault / path
    text = note.read_bytes().decode("utf-8")
    head, rest = text.split("review_on: ", 1)
    review_on, rest = rest.split("\n", 1)
    archive_on, rest = rest.split("archive_on: ", 1)[1].split("\n", 1)
    assert rest.startswith("---\n")
    text = head + tail.format(r=review_on, a=archive_on) + rest
    if "\r\n" in tail:  # the whole note, as an editor on Windows saves it
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    note.write_bytes(text.encode("utf-8"))
    svc.sync()
    return path


@pytest.mark.parametrize("tail", TAILS)
def test_archive_undo_puts_keys_back_beside_the_persons_comments(svc, empty_vault, tail):
    path = _with_tail(svc, empty_vault, tail)
    before = (empty_vault / path).read_bytes()
    moved = svc.archive(path)
    assert b"archive_on" not in (empty_vault / moved["to"]).read_bytes()
    back = svc.restore(moved["to"], prior=moved["prior"])
    assert back["to"] == path
    assert (empty_vault / path).read_bytes() == before
    assert_index_matches_rebuild(svc)


@pytest.mark.parametrize("tail", TAILS)
def test_grade_undo_puts_keys_back_beside_the_persons_comments(svc, empty_vault, tail):
    path = _with_tail(svc, empty_vault, tail)
    before = (empty_vault / path).read_bytes()
    for grade in ("remember", "fade"):
        out = svc.review_memory(path, grade)
        svc.undo_review(path, out["prior"], out["after"])
        assert (empty_vault / path).read_bytes() == before
