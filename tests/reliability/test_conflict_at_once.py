"""A conflict copy of mnemovault's own making is merged by the daemon holding the lease when
the copy appears (the watcher announces it), not at the next scheduled run (300 s here)."""

from __future__ import annotations

import re
import sys

import pytest
from conftest import make_service
from daemon_util import QUIET_LIFECYCLE, Daemon, wait_for

from vault_sync.note import parse_note

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX daemon")


def test_the_lease_holder_merges_a_new_owned_keys_copy_at_once(tmp_path):
    vault = tmp_path / "vault"
    (vault / "STM").mkdir(parents=True)
    svc = make_service(vault)
    try:
        saved = svc.save("The staging database runs Postgres 16 on port 5433.")["note"]
    finally:
        svc.close()
    note = vault / saved["path"]
    daemon = Daemon(vault, tmp_path / "home", **QUIET_LIFECYCLE).start()
    try:
        # the first run (10 s after the start) takes the lease; the next is 300 s later
        assert wait_for(lambda: daemon.status()["background"]["last_run"], 40), daemon.output()[-2000:]
        assert daemon.status()["lease"]["held"]
        text = note.read_text(encoding="utf-8")
        copy = note.with_name(f"{note.stem}.sync-conflict-20261121-103000-ABCDEF7.md")
        copy.write_text(re.sub(r"(?m)^use_count: \d+", "use_count: 6", text), encoding="utf-8")
        assert wait_for(lambda: not copy.exists(), 30), daemon.output()[-2000:]
        assert parse_note(saved["path"], note.read_bytes()).fields.use_count == 6
        merged = wait_for(lambda: daemon.status()["conflicts_merged"]["count"], 10)
        assert merged == 1 and daemon.status()["conflicts"] == []
        assert len(list((vault / ".trash").glob("*.md"))) == 1
        assert wait_for(lambda: "merged conflict copy" in daemon.log_text(), 10)
        # the person's own conflict (both sides changed the text) stays, and /api/status shows
        # the diff of their text (one side changed: merged, tests/engine/test_conflicts_one_side.py)
        common = note.read_text(encoding="utf-8").rstrip("\n")
        note.write_text(common + "\n\nOnly on the desktop.\n", "utf-8")
        mine = note.with_name(f"{note.stem}.sync-conflict-20261121-103100-ABCDEF7.md")
        mine.write_text(common + "\n\nOnly on the laptop.\n", "utf-8")
        listed = wait_for(lambda: daemon.status()["conflicts"], 30)
        assert [c["path"] for c in listed] == [mine.relative_to(vault).as_posix()] and listed[0]["differs"] == "text"
        assert "+Only on the laptop." in listed[0]["diff"] and mine.exists()
    finally:
        daemon.stop()
