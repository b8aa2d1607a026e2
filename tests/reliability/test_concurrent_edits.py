"""A person and the daemon on the same vault at the same time.

The daemon (a subprocess, lifecycle every second, quiet_seconds 0: no grace period at all)
sweeps, promotes and archives a generated vault of a few hundred notes while a second
process (tests/reliability/_person.py, seeded) edits bodies and the person's own
frontmatter keys of random notes (in place, or temp file + rename), adds and deletes
notes. At the end:

- every edit the person made is there: each note's body is the person's last body (a
  promoted note may have gained a "## Related" section), the person's keys are exactly as
  they last wrote them, deleted notes stay deleted, added notes exist;
- the engine changed nothing else: notes keep their path unless the daemon's log reports
  the move (by id), and the only other file it creates is the LTM index note.

Short form (default run): 300 notes, 8 s of editing. Long form, by hand:
    RELIABILITY_LONG=1 .venv/bin/python -m pytest tests/reliability/test_concurrent_edits.py -q -s
runs 600 notes for 60 s (RELIABILITY_SEED picks the seed).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _harness import memory_ids, scale
from _person import person_keys, split
from conftest import index_dump, rebuild_dump
from daemon_util import Daemon, wait_for

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX daemon")

NOTES = scale(300, 600)
SECONDS = scale(8.0, 60.0)
MOVE_LINE = re.compile(r" (promoted|archived) (.+?) -> (.+?) \(id (\S+)\): ")
RELATED = re.compile(r"^\s*## Related\s*\n(\s*- \[\[[^\]]+\]\]\s*\n?)+\s*$")


def _same_body(final: str, intended: str, promoted: bool) -> bool:
    norm = lambda s: re.sub(r"\[\[(LTM|Archive)/", "[[STM/", s)  # noqa: E731 - links re-pointed by moves
    final, intended = norm(final), norm(intended)
    if final == intended:
        return True
    if promoted and final.startswith(intended.rstrip("\n")):
        return bool(RELATED.match(final[len(intended.rstrip("\n")) :]))
    return False


def test_person_and_daemon_never_lose_each_others_work(tmp_path):
    from bridge.bench.generate import generate
    from vault_sync.dates import utc_now

    seed = int(os.environ.get("RELIABILITY_SEED", "42"))
    vault = tmp_path / "vault"
    generate(vault, NOTES, utc_now(), seed=seed)
    original = {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*.md")}
    ids_before = memory_ids(vault)
    path_of_id = {i: ps[0] for i, ps in ids_before.items()}
    home = tmp_path / "home"
    # the first sweep rewrites every STM note (generated scores are stale) in chunks of 16,
    # each written into the previous chunk's old copies, while the person starts editing
    daemon = Daemon(
        vault,
        home,
        MNEMOVAULT_QUIET_SECONDS=0,
        MNEMOVAULT_LIFECYCLE_INTERVAL_SECONDS=1,
        MNEMOVAULT_LEASE_SECONDS=3,
        MNEMOVAULT_AUTO_PROMOTE="true",
        MNEMOVAULT_AUTO_GC="true",
        MNEMOVAULT_SWEEP_CHUNK=16,
    )
    daemon.start(timeout=90)
    out = tmp_path / "person.json"
    try:
        person = subprocess.run(
            [
                sys.executable,
                str(Path(__file__).with_name("_person.py")),
                str(vault),
                str(seed),
                str(SECONDS),
                str(out),
            ],
            capture_output=True,
            text=True,
            timeout=SECONDS + 120,
        )
        assert person.returncode == 0, person.stderr[-3000:]
        # a last lifecycle round over the person's final edits: two more runs (the second one
        # began after the person stopped), and the index caught up with the vault
        runs = [daemon.status()["background"]["last_run"]]

        def settled() -> bool:
            last = daemon.status()["background"]["last_run"]
            if last != runs[-1]:
                runs.append(last)
            return len(runs) >= 3 and index_dump(daemon.index_path) == rebuild_dump(vault)

        assert wait_for(settled, timeout=180, step=0.2), f"the daemon did not settle (lifecycle runs seen: {runs})"
        assert daemon.alive()
        status = daemon.status()
    finally:
        rc = daemon.stop()
    assert rc == 0, daemon.output()[-3000:]
    log = daemon.log_text()
    assert "Traceback" not in log, log[-3000:]
    result = json.loads(out.read_text())
    state, raced = result["state"], set(result["raced"])

    moves: dict[str, list[tuple[str, str]]] = {}
    for m in MOVE_LINE.finditer(log):
        moves.setdefault(m.group(4), []).append((m.group(2), m.group(3)))
    ids_final = memory_ids(vault)
    dupes = {i: ps for i, ps in ids_final.items() if len(ps) > 1 and i not in raced}
    assert not dupes, f"one memory on several paths: {dupes}"

    problems = []
    seen_paths = set()
    for key, entry in state.items():
        mid = entry["id"]
        if mid:
            paths = ids_final.get(mid, [])
            final = paths[0] if paths else None
        else:
            final = entry["path"] if (vault / entry["path"]).exists() else None
        if entry["deleted"]:
            if final is not None and key not in raced:
                problems.append(f"{key}: deleted by the person, back at {final}")
            continue
        if final is None:
            problems.append(f"{key} ({entry['path']}): gone, not deleted by the person")
            continue
        seen_paths.update(ids_final.get(mid, [final]) if mid else [final])
        if key in raced:
            continue
        start = path_of_id.get(mid, entry["path"]) if mid else entry["path"]
        if final != start:
            chain = moves.get(mid or "", [])
            if not chain or chain[0][0] != start or chain[-1][1] != final:
                problems.append(f"{key}: moved {start} -> {final}, not as the daemon reported ({chain})")
        data = (vault / final).read_bytes()
        body = split(data.decode("utf-8"))[1]
        if entry["touched"]:
            want_body, want_keys = entry["body"], entry["keys"]
        else:
            src = original[start]  # the person may first have seen it after the daemon moved it
            want_body, want_keys = split(src.decode("utf-8"))[1], person_keys(src)
        if not _same_body(body, want_body, final.startswith("LTM/")):
            problems.append(
                f"{key} ({final}): body differs from the person's\n--- want\n{want_body[-300:]}\n--- got\n{body[-300:]}"
            )
        if person_keys(data) != want_keys:
            problems.append(f"{key} ({final}): person's keys {person_keys(data)} != {want_keys}")
    extra = [
        rel
        for rel in (p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
        if rel not in seen_paths and not rel.startswith(".") and rel != "LTM/LTM Index.md"
    ]
    assert not problems, "\n".join(problems[:20])
    assert not extra, f"files nobody asked for: {extra[:10]}"
    assert index_dump(daemon.index_path) == rebuild_dump(vault), "index differs from a rebuild"
    n_moves = sum(len(v) for v in moves.values())
    print(
        f"\nconcurrent edits: {result['edits']} person edits, {n_moves} daemon moves, {len(raced)} raced moves, "
        f"problems in status: {len(status['problems'])}"
    )
    assert n_moves > 0, "the daemon moved nothing: the test did not exercise promotion/GC"
