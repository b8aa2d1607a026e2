"""`mnemovault conflicts list` shows the diff of the person's text; `status` the merges made."""

from __future__ import annotations

import re

from conftest import make_service
from daemon_util import child_env, cli, index_path_of


def test_conflicts_list_and_status_in_the_terminal(tmp_path):
    vault = tmp_path / "vault"
    (vault / "STM").mkdir(parents=True)
    svc = make_service(vault)
    try:
        a = svc.save("The VPN gateway is vpn2.example.org since October.")["note"]
        b = svc.save("Invoices are due on the 5th of each month.")["note"]
    finally:
        svc.close()
    note_a, note_b = vault / a["path"], vault / b["path"]
    text_a = note_a.read_text(encoding="utf-8")
    (note_a.with_name(f"{note_a.stem}.sync-conflict-20261121-103000-ABCDEF7.md")).write_text(
        text_a.rstrip("\n") + "\n\nThe old one [vpn1] is off.\n", encoding="utf-8"
    )
    # both sides changed the text: the person's to merge (one side only would merge by itself)
    note_a.write_text(text_a.rstrip("\n") + "\n\nChecked on the desktop.\n", encoding="utf-8")
    keys_only = note_b.with_name(f"{note_b.stem}.sync-conflict-20261121-103000-ABCDEF7.md")
    keys_only.write_text(re.sub(r"(?m)^use_count: \d+", "use_count: 9", note_b.read_text("utf-8")), "utf-8")
    env = child_env(tmp_path / "home")
    out = cli("conflicts", "list", "--vault", str(vault), env=env)
    assert out.returncode == 0, out.stderr
    assert "+The old one [vpn1] is off." in out.stdout  # the person's brackets printed as written
    assert "only mnemovault's keys differ" in out.stdout and "your text differs" in out.stdout

    svc = make_service(vault, index_path=index_path_of(tmp_path / "home", vault))  # the CLI's index
    try:
        assert len(svc.settle_conflicts()) == 1 and not keys_only.exists()  # as the lease holder does
    finally:
        svc.close()
    out = cli("status", "--vault", str(vault), env=env)
    assert out.returncode == 0, out.stderr
    assert "merged 1 conflict copies by themselves (last at 2026-11-20" in " ".join(out.stdout.split())
    assert "1 sync-conflict copies" in out.stdout
