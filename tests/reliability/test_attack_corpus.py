"""Hostile HTTP requests, each written as a curl command line, replayed against a real daemon.

Each case is one hostile request (written as the `curl` command an attacker with the token
would type), the statuses that count as a clear refusal, and whether the vault must be left
byte-for-byte as it was. Two passes:
- one daemon takes the whole corpus: every answer is a clear 4xx with a short message, the
  vault is unchanged where nothing should change, the daemon stays up, and its RSS after the
  corpus is within 100 MB of before;
- each case again, then a restart: the daemon comes back cleanly every time (the forged
  journal of the original report kept it from starting at all).
File-level attacks (a poisoned journal, a corrupt index, a vault config pointing outside the
vault) are the `test_*` functions after the corpus.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from string import Template

import hostile_corpus as corpus
import pytest
from _harness import lease_held_elsewhere, vault_hashes
from conftest import SAMPLE
from daemon_util import QUIET_LIFECYCLE, Daemon

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX daemon"),
    pytest.mark.skipif(
        shutil.which("curl") is None, reason="curl is not installed: the attack corpus is written as curl lines"
    ),
]

NOTE = "STM/Staging runs Postgres 16.md"
OTHER = "Welcome.md"
MAX_MESSAGE = 300  # an error quotes a short prefix of the input at most


@dataclass(frozen=True)
class Attack:
    name: str
    curl: str  # $url, $token, $big (a file holding a large body) are filled in
    statuses: tuple[int, ...]
    unchanged: bool = True


def _rpc(op: str, args: dict) -> str:
    body = json.dumps({"op": op, "args": args})
    return (
        "curl -sS -X POST $url/api/rpc -H 'Authorization: Bearer $token' -H 'Content-Type: application/json' "
        f"-d {shlex.quote(body)}"
    )


def _post(path: str, body: dict) -> str:
    return (
        f"curl -sS -X POST $url{path} -H 'Authorization: Bearer $token' -H 'Content-Type: application/json' "
        f"-d {shlex.quote(json.dumps(body))}"
    )


def _secret() -> str:
    """A GitHub token from the hostile corpus (assembled at run time), alone."""
    text = dict(corpus.secrets())["GitHub token"]
    return next(word for word in text.split() if word.startswith("gh"))


ATTACKS = [
    Attack(
        "forged owned keys through archive's extra",
        _rpc("archive", {"ref": NOTE, "extra": {"id": "forged", "use_count": 999, "strength": 7, "status": "active"}}),
        (400,),
    ),
    Attack("a frontmatter key holding a newline", _rpc("archive", {"ref": NOTE, "extra": {"evil\nkey": "x"}}), (400,)),
    Attack(
        "tags as a string",
        _rpc("save", {"text": "The build server runs on port 8080 every night.", "tags": "abc"}),
        (400,),
    ),
    Attack("boost as the word no", _rpc("touch", {"ref": NOTE, "boost": "no"}), (400,)),
    Attack("gc with dry_run null", _rpc("gc", {"dry_run": None}), (400,)),
    Attack("gc over HTTP with dry_run as a string", _post("/api/gc", {"dry_run": "false"}), (400,)),
    Attack("limit of the wrong type", _rpc("review", {"limit": "ten"}), (400,)),
    Attack("search limit 0", _rpc("search", {"query": "postgres", "limit": 0}), (400,)),
    Attack("search limit -3", _rpc("search", {"query": "postgres", "limit": -3}), (400,)),
    Attack("an integer too large for Python's C long", _rpc("review", {"limit": 10**30}), (400,)),
    Attack("an unknown argument", _rpc("touch", {"ref": NOTE, "use_count": 999}), (400,)),
    Attack(
        "an internal method",
        _rpc("create_memory", {"text": "Forged memory with a chosen count.", "use_count": 999}),
        (400,),
    ),
    Attack("a secret in the title", "SECRET_TITLE", (422,)),
    Attack("a secret in the tags", "SECRET_TAG", (422,)),
    Attack("a secret as a relation type", "SECRET_REL", (400, 422)),
    Attack("a secret split by spaces", "SECRET_SPACED", (422,)),
    Attack("a full-width secret", "SECRET_WIDE", (422,)),
    Attack("a secret with a zero-width space", "SECRET_ZW", (422,)),
    Attack(
        "a tag of 5 MB",
        "curl -sS -X POST $url/api/rpc -H 'Authorization: Bearer $token' -H 'Content-Type: application/json' "
        "--data-binary @$big_tag",
        (400, 413),
    ),
    Attack(
        "a query of 20 MB",
        "curl -sS -X POST $url/api/rpc -H 'Authorization: Bearer $token' -H 'Content-Type: application/json' "
        "--data-binary @$big_query",
        (400, 413),
    ),
    Attack(
        "a newline in a title",
        _rpc("save", {"text": "The deploy window is Tuesday at ten.", "title": "a\nstatus: active"}),
        (400,),
    ),
    Attack(
        "a bidi override in a tag",
        _rpc("save", {"text": "The deploy window is Tuesday at ten.", "tags": ["ok\u202etxt"]}),
        (400,),
    ),
    Attack(
        "a body that is not JSON",
        "curl -sS -X POST $url/api/touch -H 'Authorization: Bearer $token' -d '{not json'",
        (400,),
    ),
]


def _secret_cases() -> dict[str, str]:
    """The secret attacks, built at run time so this file holds no secret."""
    key = _secret()
    spaced = " ".join(key[i : i + 6] for i in range(0, len(key), 6))
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in key)
    zw = key[:8] + "\u200b" + key[8:]
    text = "The build server runs on port 8080 every night."
    return {
        "SECRET_TITLE": _rpc("save", {"text": text, "title": f"deploy {key}"}),
        "SECRET_TAG": _rpc("save", {"text": text, "tags": [key]}),
        "SECRET_REL": _rpc("relate", {"a": NOTE, "b": OTHER, "rel_type": key}),
        "SECRET_SPACED": _rpc("save", {"text": f"the key is {spaced}"}),
        "SECRET_WIDE": _rpc("save", {"text": f"the key is {wide}"}),
        "SECRET_ZW": _rpc("save", {"text": f"the key is {zw}"}),
    }


def _run(attack: Attack, daemon: Daemon, files: dict[str, Path]) -> tuple[int, str]:
    line = _secret_cases().get(attack.curl, attack.curl)
    filled = Template(line).substitute(
        url=daemon.url, token=daemon.info["token"], **{k: str(v) for k, v in files.items()}
    )
    args = shlex.split(filled) + ["-o", "-", "-w", "\n%{http_code}", "--max-time", "60"]
    out = subprocess.run(args, capture_output=True, timeout=90)
    body, _, code = out.stdout.decode("utf-8", "replace").rpartition("\n")
    return int(code), body


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    base = tmp_path_factory.mktemp("attacks")
    vault = base / "vault"
    shutil.copytree(SAMPLE, vault)
    lease_held_elsewhere(vault)  # no background writes: any change is a request's doing
    big_tag = base / "big_tag.json"
    big_tag.write_text(
        json.dumps({"op": "save", "args": {"text": "A note with a huge tag.", "tags": ["t" * 5_000_000]}})
    )
    big_query = base / "big_query.json"
    big_query.write_text(json.dumps({"op": "search", "args": {"query": "postgres " * 2_300_000}}))
    daemon = Daemon(vault, base / "home", MNEMOVAULT_QUIET_SECONDS=0, **QUIET_LIFECYCLE).start(timeout=90)
    yield daemon, vault, {"big_tag": big_tag, "big_query": big_query}
    daemon.stop()
    daemon.close()


def _check(attack: Attack, code: int, body: str) -> None:
    assert code in attack.statuses, f"{attack.name}: {code} {body[:300]}"
    err = json.loads(body)["error"]
    assert err["code"] and err["message"], attack.name
    assert len(err["message"]) <= MAX_MESSAGE, (
        f"{attack.name}: the message echoes the input ({len(err['message'])} chars)"
    )
    assert "Traceback" not in body and ".tmp" not in body, attack.name


def test_the_corpus_on_one_daemon(setup):
    daemon, vault, files = setup
    rss_before = _rss_kb(daemon.proc.pid)
    for attack in ATTACKS:
        before = vault_hashes(vault)
        code, body = _run(attack, daemon, files)
        _check(attack, code, body)
        if attack.unchanged:
            assert vault_hashes(vault) == before, f"{attack.name}: the vault changed"
        assert daemon.alive(), f"{attack.name}: the daemon died"
    grown_mb = (_rss_kb(daemon.proc.pid) - rss_before) / 1024
    assert grown_mb < 100, f"RSS grew by {grown_mb:.0f} MB over the corpus"


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_the_daemon_restarts_after_each_attack(setup, attack):
    daemon, vault, files = setup
    code, body = _run(attack, daemon, files)
    _check(attack, code, body)
    assert daemon.stop() == 0
    daemon.start(timeout=60)
    assert daemon.status()["counts"]["stm"] > 0
