"""Status that scales: `status` through a running daemon, every dangling
link listed a page at a time (`mnemovault links --dangling`)."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import make_service
from daemon_util import QUIET_LIFECYCLE, Daemon, child_env, cli

LINKS = 300  # three pages of 100 and more


def dangling_vault(root) -> set[tuple[str, str]]:
    """Notes with LINKS dangling links between them (and resolving ones that must not appear)."""
    (root / "Target.md").write_text("a note that exists\n", encoding="utf-8")
    expected = set()
    for n in range(23):
        lines = ["[[Target]] resolves"]
        for i in range(10):
            lines.append(
                f"see [[Missing {n}-{i}]] and [x](<nowhere {n} {i}.md>)" if i % 2 else f"see [[Missing {n}-{i}#Part]]"
            )
            expected.add((f"Source {n:02d}.md", f"Missing {n}-{i}" + ("" if i % 2 else "#Part")))
            if i % 2:
                expected.add((f"Source {n:02d}.md", f"nowhere {n} {i}"))  # reported without .md
        (root / f"Source {n:02d}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return expected


def pages(get_page) -> tuple[list[tuple[str, str]], int, int]:
    """Every link over the pages `get_page(offset)` gives; (links, total, pages read)."""
    out, offset, count, total = [], 0, 0, None
    while offset is not None:
        page = get_page(offset)
        total = page["total"] if total is None else total
        assert page["total"] == total and len(page["links"]) <= 100
        out += [(d["source"], d["target"]) for d in page["links"]]
        offset, count = page["next_offset"], count + 1
    return out, total, count


def test_every_dangling_link_is_listed_over_pages(empty_vault):
    expected = dangling_vault(empty_vault)
    assert len(expected) > LINKS
    svc = make_service(empty_vault)
    links, total, count = pages(lambda offset: svc.dangling(limit=100, offset=offset))
    assert total == len(expected) and count == -(-total // 100)
    assert len(links) == len(set(links)) and set(links) == expected  # each once, none missing
    assert links == sorted(links)
    status = svc.status()
    assert status["dangling_links"] == total and len(status["dangling"]) == 50
    svc.close()


def test_links_dangling_cli_json_pages_and_text(empty_vault):
    expected = dangling_vault(empty_vault)
    env = child_env(MNEMOVAULT_NO_DAEMON="1")

    def page(offset):
        out = cli(
            "links",
            "--dangling",
            "--json",
            "--limit",
            "100",
            "--offset",
            str(offset),
            "--vault",
            str(empty_vault),
            env=env,
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    links, total, count = pages(page)
    assert set(links) == expected and total == len(expected) and count == -(-total // 100)
    text = cli("links", "--dangling", "--limit", "5", "--vault", str(empty_vault), env=env)
    assert text.returncode == 0, text.stderr
    assert (
        "Source 00.md -> Missing 0-0#Part" in text.stdout
        and f"1-5 of {total} dangling links; next: --offset 5" in text.stdout
    )
    bad = cli("links", "--dangling", "--limit", "0", "--vault", str(empty_vault), env=env)
    assert bad.returncode != 0
    assert cli("links", "--vault", str(empty_vault), env=env).returncode == 2


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_status_and_links_go_through_a_running_daemon(empty_vault, tmp_path):
    expected = dangling_vault(empty_vault)
    daemon = Daemon(empty_vault, tmp_path / "home", **QUIET_LIFECYCLE).start()
    try:
        # a data dir the CLI cannot use: it can only answer through the daemon
        blocker = tmp_path / "not-a-dir"
        blocker.write_text("", encoding="utf-8")
        env = {**daemon.env, "MNEMOVAULT_DATA_DIR": str(blocker / "data")}
        out = cli("status", "--json", "--vault", str(empty_vault), env=env)
        assert out.returncode == 0, out.stderr
        status = json.loads(out.stdout)
        assert status["index"] == str(daemon.index_path)  # the daemon's index, not one of its own
        assert status["watcher"] is not None and status["dangling_links"] == len(expected)

        out = cli(
            "links", "--dangling", "--json", "--limit", "100", "--offset", "300", "--vault", str(empty_vault), env=env
        )
        assert out.returncode == 0, out.stderr
        page = json.loads(out.stdout)
        assert (
            page["total"] == len(expected) and len(page["links"]) == len(expected) - 300 and page["next_offset"] is None
        )

        direct = cli("status", "--json", "--vault", str(empty_vault), env={**env, "MNEMOVAULT_NO_DAEMON": "1"})
        assert direct.returncode != 0  # without the daemon that data dir fails: the answers above were the daemon's
    finally:
        daemon.close()
