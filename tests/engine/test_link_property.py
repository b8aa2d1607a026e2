"""Property: over generated vaults with shared names, tables, Markdown links and attachments,
no link changes target through promote, archive and restore (docs/links.md, "Moves")."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

from conftest import make_service
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vault_sync.index.resolver import build_resolver

NAMES = ["Home", "Plan", "Idea one"]
FOLDERS = ["STM", "LTM", "Archive", "it", "it/deep", "", "People"]


def link_text(form: int, target_path: str, source: str, label: str) -> str:
    """A link to `target_path` (a vault path) written in one of several forms; labels keep
    each link's identity through rewrites."""
    stem = target_path[:-3] if target_path.endswith(".md") else target_path
    name = stem.rsplit("/", 1)[-1]
    if form == 0:
        return f"[[{name}|{label}]]"
    if form == 1:
        return f"[[{stem}|{label}]]"
    if form == 2:
        return f"| [[{stem}\\|{label}]] |"
    if form == 3:
        return f"[{label}]({quote(stem, safe='/')})"
    if form == 4:
        return f"[{label}]({quote(stem, safe='/')}.md)"
    if form == 5:
        return f"[{label}](<{name}>)"
    return f"![{label}]({quote(target_path, safe='/')})"


def resolved(svc) -> set[tuple[str, str, str]]:
    resolver = build_resolver(svc.store)
    out = set()
    # restore removes merged_into / archive_reason (the frontmatter links consolidate and
    # archive write) by design: those are dropped, not retargeted
    for r in svc.store.query(
        "SELECT n.path, l.target, l.alias, l.markdown FROM links l JOIN notes n ON n.rowid = l.source "
        "WHERE l.kind NOT IN ('related:merged_into', 'related:archive_reason')"
    ):
        hit = resolver.resolve(r["target"], r["path"], bool(r["markdown"]))
        if hit is not None:
            out.add((r["path"], r["alias"], hit))
    return out


MOVES: list[str] = []  # moves checked, over all examples


def moved_to(result: dict, old: str) -> str | None:
    """The new path in a promote / archive / restore result ({"to": ...}, maybe in a list)."""
    items = [result, *(x for v in result.values() if isinstance(v, list) for x in v if isinstance(x, dict))]
    return next((x["to"] for x in items if x.get("from", old) == old and x.get("to")), None)


vaults = st.tuples(
    st.lists(st.tuples(st.sampled_from(FOLDERS), st.sampled_from(NAMES)), min_size=3, max_size=9, unique=True),
    st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8), st.integers(0, 8)), min_size=3, max_size=16),
    st.lists(
        st.tuples(st.sampled_from(["promote", "archive", "restore", "consolidate"]), st.integers(0, 8)),
        min_size=1,
        max_size=4,
    ),
)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(vaults)
# every kind of move at least once whatever the random draw: shared names across folders,
# two STM memories to consolidate, then a promote, an archive and a restore
@example(
    (
        [("STM", "Home"), ("STM", "Plan"), ("LTM", "Home"), ("it", "Plan"), ("STM", "Idea one")],
        [(0, 2, 0), (1, 0, 1), (2, 1, 0), (3, 4, 2), (4, 0, 3), (0, 7, 6)],
        [("consolidate", 0), ("promote", 0), ("archive", 0), ("restore", 0)],
    )
)
def test_no_link_changes_target_through_moves(spec):
    notes, links, moves = spec
    if not any(f == "STM" for f, _ in notes):
        notes = [*notes, ("STM", "Home")]
    paths = [f"{f}/{n}.md".lstrip("/") for f, n in notes]
    files = ["img/pic.png", "it/manual.pdf"]
    tmp = Path(tempfile.mkdtemp())
    try:
        v = tmp / "vault"
        bodies: dict[str, list[str]] = {p: [] for p in paths}
        for i, (s, t, form) in enumerate(links):
            src = paths[s % len(paths)]
            target = (paths + files)[t % (len(paths) + len(files))]
            if form == 6 or target in files:
                form = 6 if target in files else form
            bodies[src].append(link_text(form, target, src, f"L{i}"))
        for p in paths:
            (v / p).parent.mkdir(parents=True, exist_ok=True)
            (v / p).write_text("text\n\n" + "\n\n".join(bodies[p]) + "\n", encoding="utf-8")
        for f in files:
            (v / f).parent.mkdir(parents=True, exist_ok=True)
            (v / f).write_bytes(b"x")
        for folder in ("STM", "LTM", "Archive"):
            (v / folder).mkdir(exist_ok=True)
        svc = make_service(v)
        for op, k in moves:
            before = resolved(svc)
            rows = svc.store.query("SELECT path, kind FROM notes ORDER BY path")
            want_kind = {"promote": "stm", "archive": "stm", "restore": "archive", "consolidate": "stm"}[op]
            cands = [r["path"] for r in rows if r["kind"] == want_kind and r["path"] != "LTM/LTM Index.md"]
            if not cands:
                continue
            old = cands[k % len(cands)]
            if op == "consolidate":
                if len(cands) < 2:
                    continue
                pair = [old, cands[(k + 1) % len(cands)]]
                try:
                    result = svc.consolidate(pair, apply=True)
                except Exception:
                    assert resolved(svc) == before
                    continue
                new_of = {m["from"]: m["to"] for m in result["archived"]}
                MOVES.append(op)
                expect = {(new_of.get(s, s), a, new_of.get(t, t)) for s, a, t in before}
                after = resolved(svc)
                assert expect <= after, sorted(expect - after)
                continue
            try:
                result = getattr(svc, op)(old)
            except Exception:  # a refused move (name taken there): nothing moved, nothing to check
                assert resolved(svc) == before
                continue
            new = moved_to(result, old)
            if new is None:
                assert resolved(svc) == before
                continue
            MOVES.append(op)
            after = resolved(svc)
            expect = {(new if s == old else s, a, new if t == old else t) for s, a, t in before}
            assert expect <= after, sorted(expect - after)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_the_property_saw_every_kind_of_move():
    # runs after the property test (file order): it must have checked real moves of each kind
    if not MOVES:
        test_no_link_changes_target_through_moves()
    assert {"promote", "archive", "consolidate"} <= set(MOVES) and len(MOVES) >= 10, MOVES


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(vaults)
@example(
    (
        [("STM", "Home"), ("People", "Home"), ("", "Plan"), ("it/deep", "Plan")],
        [(2, 0, 0), (3, 0, 5), (2, 0, 7), (3, 0, 8), (1, 0, 3)],
        [("archive", 0)],
    )
)
# [[Home]] in Archive/ means LTM/Home.md until the archived STM/Home.md lands beside it; after
# the undo the rewritten [[LTM/Home]] would still do, and [[Home]] is what was written
@example(([("STM", "Home"), ("LTM", "Home"), ("Archive", "Plan")], [(2, 0, 0)], [("archive", 0)]))
# [[Plan]] and [[STM/Plan]] in one note both become [[Archive/Plan]]: each gets its own back
@example(([("LTM", "Home"), ("STM", "Plan"), ("People", "Plan")], [(0, 1, 0), (0, 1, 1)], [("archive", 0)]))
# [L2](<Home>) becomes [L2](<LTM/Home>) after a link already written (LTM/Home): the undo
# tells the two apart by their places in the text
@example(([("STM", "Home"), ("LTM", "Home"), ("Archive", "Plan")], [(2, 1, 3), (2, 0, 5)], [("archive", 0)]))
def test_an_archive_and_its_undo_leave_every_other_note_as_written(spec):
    """Whatever a move had to rewrite (a bare name another note would now take, a path), the
    undo writes each link back as it was: every other note's bytes are the original's."""
    notes, links, _ = spec
    if not any(f == "STM" for f, _ in notes):
        notes = [*notes, ("STM", "Home")]
    paths = [f"{f}/{n}.md".lstrip("/") for f, n in notes]
    tmp = Path(tempfile.mkdtemp())
    try:
        v = tmp / "vault"
        bodies: dict[str, list[str]] = {p: [] for p in paths}
        for i, (s, t, form) in enumerate(links):
            src, target = paths[s % len(paths)], paths[t % len(paths)]
            stem = target[:-3]
            rooted = [f"[L{i}](/{quote(target, safe='/')})", f"[[/{stem}|L{i}]]"]  # from the vault root
            bodies[src].append(link_text(form, target, src, f"L{i}") if form < 7 else rooted[form % 2])
        for p in paths:
            (v / p).parent.mkdir(parents=True, exist_ok=True)
            (v / p).write_text("text\n\n" + "\n\n".join(bodies[p]) + "\n", encoding="utf-8")
        for folder in ("STM", "LTM", "Archive"):
            (v / folder).mkdir(exist_ok=True)
        svc = make_service(v)
        try:
            memory = next(p for p in paths if p.startswith("STM/"))
            if "Archive/" + memory[4:] in paths:
                return  # the archive is refused (its name is taken there): nothing moves
            before = {p: (v / p).read_bytes() for p in paths if p != memory}
            done = svc.archive(memory)
            svc.restore(done["to"], prior=done["prior"])
            assert {p: (v / p).read_bytes() for p in before} == before
        finally:
            svc.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
