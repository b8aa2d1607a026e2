"""The hostile-input corpus: bad notes on disk, bad refs and paths for every tool and
endpoint argument, bad texts and titles for save, and secrets (assembled at import time from
a seeded RNG and split prefixes, so this file holds nothing a secret scanner would flag).

Every entry is (case name, value). The notes: malformed YAML, unclosed frontmatter,
non-UTF-8, empty, huge, binary, invalid values, YAML bombs, deep nesting, huge frontmatter,
NUL bytes, very long and Windows-reserved names, symlink loops and symlinks out of the vault.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

_RNG = random.Random(9)
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"


def _rand(n: int, alphabet: str = ALNUM) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def _tok(n: int) -> str:
    return "Q7z" + _rand(n - 3)


ID = "0b5e7c52-1f7e-4c1b-9a55-{:012d}"


def _fm(i: int, extra: str) -> str:
    return (
        f"---\nid: {ID.format(i)}\ncreated: 2026-11-01T10:00:00+00:00\nlast_used: 2026-11-01T10:00:00+00:00\n"
        f"{extra}---\nA memory with a problem, number {i}.\n"
    )


def _billion_laughs() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i, name in enumerate("bcdefghij"):
        prev = "abcdefghij"[i]
        lines.append(f"{name}: &{name} [" + ",".join(f"*{prev}" for _ in range(9)) + "]")
    return "---\n" + "\n".join(lines) + "\n---\nlaughs\n"


def _recursive_alias() -> str:
    return "---\nx: &x\n  - *x\n---\nrecursive\n"


# vault-relative path -> bytes. Each is a note the engine must read without crashing,
# report as a problem (or skip with a reason), and never write.
NOTES: dict[str, bytes] = {
    "STM/malformed yaml.md": b"---\nid: [unclosed\ntags: {a: \n---\nbody\n",
    "STM/unclosed frontmatter.md": b"---\nid: 1\nuse_count: 2\nthe closing line never comes\n",
    "STM/not utf8.md": b"---\nid: x\n---\n\xff\xfe\xfa bytes that are not UTF-8\n",
    "STM/empty.md": b"",
    "STM/binary.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4,
    "STM/nul bytes.md": b"---\nid: y\n---\ntext with a NUL\x00 in it\n",
    "STM/use_count lots.md": _fm(1, "use_count: lots\n").encode(),
    "STM/strength seven.md": _fm(2, "strength: 7\n").encode(),
    "STM/billion laughs.md": _billion_laughs().encode(),
    "STM/recursive alias.md": _recursive_alias().encode(),
    "STM/deep nesting.md": ("---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\ndeep\n").encode(),
    "STM/deep maps.md": (
        "---\n" + "".join("  " * i + f"k{i}:\n" for i in range(300)) + "  " * 300 + "v: 1\n---\nmaps\n"
    ).encode(),
    "STM/huge frontmatter.md": (
        "---\n" + "".join(f"key{i}: {'v' * 80}\n" for i in range(12000)) + "---\nbody\n"
    ).encode(),
    "STM/duplicate keys.md": _fm(3, "use_count: 2\nuse_count: 5\n").encode(),
    "STM/not a mapping.md": b"---\n- just\n- a list\n---\nbody\n",
    "STM/tags not list.md": _fm(4, "tags: {a: 1}\n").encode(),
    "STM/bad date.md": _fm(5, "").replace("created: 2026-11-01T10:00:00+00:00", "created: yesterday-ish").encode(),
    "Projects/crlf bom.md": b"\xef\xbb\xbf---\r\ntags: [x]\r\n---\r\n# Title\r\nbody\r\n",
    ("STM/" + "long name " * 24 + "x.md"): _fm(6, "").encode(),  # 245 bytes: near the 255-byte limit
    "STM/CON.md": _fm(7, "").encode(),
    "STM/aux.md": _fm(8, "").encode(),
    "STM/NUL.md": _fm(9, "").encode(),
    "STM/COM1.md": _fm(10, "").encode(),
    "STM/trailing dot..md": _fm(11, "").encode(),
    "STM/odd \u202e unicode \u200b name.md": _fm(12, "").encode(),
}
HUGE_NOTE = "STM/ten megabytes.md"
HUGE_BYTES = 10 * 1024 * 1024

SECRET_OUTSIDE = "SECRET-OUTSIDE-THE-VAULT-4f9a1c"


def write_notes(vault: Path) -> None:
    """Every bad note, the 10 MB note, and the symlinks (loops and ways out)."""
    for rel, data in NOTES.items():
        p = vault / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    with open(vault / HUGE_NOTE, "wb") as fh:
        line = b"a line of a very large note that nobody should load in one piece\n"
        fh.write(b"---\nid: huge\n---\n" + line * (HUGE_BYTES // len(line)))
    outside = vault.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.md").write_text(f"---\nid: outside\n---\n{SECRET_OUTSIDE}\n", encoding="utf-8")
    (vault / "STM" / "loop").symlink_to(".", target_is_directory=True)  # a folder loop
    (vault / "Projects" / "up").symlink_to("..", target_is_directory=True)  # a loop through the root
    (vault / "STM" / "self.md").symlink_to("self.md")  # a link to itself
    (vault / "STM" / "escape.md").symlink_to(outside / "secret.md")  # a note pointing out
    (vault / "Projects" / "outside").symlink_to(outside, target_is_directory=True)  # a folder pointing out


# refs and paths that must never reach outside the vault (or a hidden file in it)
BAD_REFS: list[tuple[str, str]] = [
    ("dotdot", "../outside/secret.md"),
    ("dotdot-deep", "STM/../../outside/secret.md"),
    ("dotdot-many", "../../../../../../etc/passwd"),
    ("absolute", "/etc/passwd"),
    ("absolute-vault-sibling", "/tmp/../etc/hostname"),
    ("windows-drive", "C:\\Windows\\win.ini"),
    ("windows-dotdot", "..\\outside\\secret.md"),
    ("unc", "\\\\server\\share\\x.md"),
    ("home", "~/.ssh/id_rsa"),
    ("url-encoded", "%2e%2e/outside/secret.md"),
    ("nul", "STM/a\x00.md"),
    ("nul-only", "\x00"),
    ("empty", ""),
    ("spaces", "   "),
    ("very-long", "a" * 5000),
    ("very-long-path", "/".join(["d" * 200] * 30) + ".md"),
    ("windows-reserved", "LPT1"),
    ("windows-reserved-path", "STM/PRN.md"),
    ("symlink-out", "STM/escape.md"),
    ("symlink-folder-out", "Projects/outside/secret.md"),
    ("symlink-loop", "STM/loop/loop/loop/self.md"),
    ("self-link", "STM/self.md"),
    ("hidden-lease", ".mnemovault/lease.json"),
    ("hidden-obsidian", ".obsidian/app.json"),
    ("hidden-trash", ".trash/x.md"),
    ("newline", "STM/x.md\n../../etc/passwd"),
]

# refs to bad notes inside the vault: a user operation on one must be refused cleanly
BAD_NOTE_REFS = [rel for rel in NOTES if rel.startswith("STM/")] + [HUGE_NOTE]


def secrets() -> list[tuple[str, str]]:
    """(kind, text) pairs that save must refuse."""
    pk = "PRIVATE" + " KEY"
    dashes = "-" * 5
    pem = (
        f"{dashes}BEGIN RSA {pk}{dashes}\n"
        + "\n".join(_rand(64, B64) for _ in range(4))
        + f"\n{dashes}END RSA {pk}{dashes}"
    )
    pw = "Tr0ub4dor" + _rand(6) + "x9"
    return [
        (
            "AWS access key ID",
            "the deploy user key is AKIA" + _rand(15, string.ascii_uppercase + string.digits) + "7 for prod",
        ),
        ("GitHub token", "push with gh" + "p_" + _tok(36) + " from the CI box"),
        ("OpenAI API key", "the assistant uses s" + "k-proj-" + _tok(60) + " in staging"),
        ("Anthropic API key", "our key is s" + "k-ant-api03-" + _tok(93) + "AA for the bot"),
        (
            "Slack token",
            "the bot token xo" + "xb-" + _rand(12, string.digits) + "-" + _rand(13, string.digits) + "-" + _tok(24),
        ),
        ("private key block", "the server key follows\n" + pem),
        ("password assignment", f"the database login is password={pw} on the replica"),
        ("PostgreSQL connection string", f"DATABASE_URL=postgres://app:{pw}@db.internal:5432/app is the main db"),
        ("Stripe secret key", "billing uses sk" + "_live_" + _tok(24) + " since March"),
        ("GitLab token", "CI token: gl" + "pat-" + _tok(24) + " for the mirror"),
    ]


# texts save must refuse (not secrets)
BAD_TEXTS: list[tuple[str, object]] = [
    ("empty", ""),
    ("blank", "   \n\t  "),
    ("too-short", "ok"),
    ("nul", "a memory with a NUL \x00 byte inside it"),
    ("too-long", "word " * 60_000),
]

# titles: either refused, or turned into a safe name inside STM/
BAD_TITLES: list[tuple[str, str]] = [
    ("dotdot", "../../outside/evil"),
    ("absolute", "/etc/cron.d/evil"),
    ("windows-reserved", "LPT1"),
    ("windows-reserved-path", "STM/PRN.md"),
    ("windows-reserved-ext", "aux.txt"),
    ("nul", "evil\x00name"),
    ("very-long", "long title " * 100),
    ("dots-only", "...."),
    ("backslashes", "..\\..\\evil"),
    ("hidden", ".obsidian/plugins/evil"),
    ("controls", "bell\x07tab\tnewline\nend"),
]
