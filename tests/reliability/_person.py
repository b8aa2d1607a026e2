"""A person editing a vault, as a separate process: `python _person.py VAULT SEED SECONDS OUT.json`.

Edits bodies and their own frontmatter keys of random notes (in place, or temp file +
rename as many editors do), adds and deletes notes. Memories are followed by id (the daemon
may move them to LTM/ or Archive/ meanwhile). Writes what it intended to OUT.json:
{key: {"id", "path", "body", "mine": {...}, "deleted"}} where key is the memory id or, for
the person's own notes, the path.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from vault_sync.fmblock import find_block  # noqa: E402
from vault_sync.note import OWNED_KEYS, parse_note  # noqa: E402

ENGINE_KEYS = set(OWNED_KEYS) | {"archive_reason", "merged_into"}


def person_keys(data: bytes) -> dict[str, str]:
    """The frontmatter keys that belong to the person (everything the engine does not own)."""
    fm = parse_note("x.md", data).frontmatter
    return {k: repr(v) for k, v in fm.items() if k not in ENGINE_KEYS}


FOLDERS = ("STM", "LTM", "Archive")


def split(text: str) -> tuple[str, str]:
    block = find_block(text)
    return (text[: block.body_start], text[block.body_start :]) if block else ("", text)


def find_by_id(vault: Path, mid: str, hint: str) -> Path | None:
    name = Path(hint).name
    for folder in FOLDERS:
        p = vault / folder / name
        if p.exists():
            try:
                if parse_note(name, p.read_bytes()).fields.id == mid:
                    return p
            except OSError:
                pass
    for folder in FOLDERS:
        for p in (vault / folder).glob("*.md"):
            try:
                if parse_note(p.name, p.read_bytes()).fields.id == mid:
                    return p
            except OSError:
                continue
    return None


def write(path: Path, data: bytes, rng: random.Random) -> bool:
    """In place (one write) or temp + rename; False when the note vanished (moved meanwhile)."""
    if rng.random() < 0.5:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_TRUNC)  # no O_CREAT: never re-create a moved note
        except FileNotFoundError:
            return False
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        return True
    tmp = path.with_name(f"{path.name}.{uuid.uuid4().hex[:6]}.tmp")  # not .md: not a note
    tmp.write_bytes(data)
    if not path.exists():
        tmp.unlink()
        return False
    os.replace(tmp, path)
    return True


def first_look(vault: Path) -> dict[str, dict]:
    """Every note as it is now; the daemon is already running, so a note it moves while we
    look is looked for again (under load a promotion can land between listing and reading)."""
    for _ in range(20):
        state: dict[str, dict] = {}
        try:
            for p in sorted(vault.rglob("*.md")):
                rel = p.relative_to(vault).as_posix()
                note = parse_note(rel, p.read_bytes())
                key = note.fields.id if rel.split("/")[0] in FOLDERS and note.fields.id else rel
                state[key] = {
                    "id": note.fields.id if key != rel else None,
                    "path": rel,
                    "touched": False,
                    "deleted": False,
                }
            return state
        except FileNotFoundError:
            time.sleep(0.05)
    raise RuntimeError("the vault kept moving under the first look")


def main(vault: Path, seed: int, seconds: float, out: Path) -> None:
    rng = random.Random(seed)
    state = first_look(vault)
    keys = sorted(state)
    n_edits = 0
    raced = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        action = rng.random()
        if action < 0.08:  # add a note (a memory or one of the person's notes)
            k = uuid.uuid4().hex[:8]
            body = f"\nA note the person added, {k}.\n"
            if rng.random() < 0.6:
                mid = str(uuid.uuid4())
                rel = f"STM/Person added {k}.md"
                text = f"---\nid: {mid}\nmine_added: {k}\n---\n" + body
                key = mid
            else:
                rel = f"Projects/Person added {k}.md"
                text = f"---\nmine_added: {k}\n---\n" + body
                key, mid = rel, None
            (vault / rel).write_text(text, encoding="utf-8")
            state[key] = {
                "id": mid,
                "path": rel,
                "touched": True,
                "deleted": False,
                "body": body,
                "keys": person_keys(text.encode("utf-8")),
            }
            keys.append(key)
            continue
        key = rng.choice(keys)
        entry = state[key]
        if entry["deleted"]:
            continue
        path = find_by_id(vault, entry["id"], entry["path"]) if entry["id"] else vault / entry["path"]
        if path is None or not path.exists():
            continue
        if action < 0.12:  # delete
            try:
                os.unlink(path)
            except FileNotFoundError:
                continue
            entry["deleted"] = True
            continue
        try:
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        head, body = split(text)
        n_edits += 1
        if action < 0.6 or not head:  # body edit
            body = body.rstrip("\n") + f"\nEdit {n_edits} by the person.\n"
        else:  # one of the person's own frontmatter keys
            k = f"mine_{rng.randint(0, 3)}"
            lines = head.split("\n")
            lines = [ln for ln in lines if not ln.startswith(f"{k}:")]
            lines.insert(len(lines) - 2, f"{k}: value {n_edits}")  # before the closing ---
            head = "\n".join(lines)
        data = (head + body).encode("utf-8")
        if not write(path, data, rng):
            continue
        rel = path.relative_to(vault).as_posix()
        if entry["id"] and rel.startswith("STM/") and any((vault / f / path.name).exists() for f in ("LTM", "Archive")):
            raced.append(key)  # moved between our look and our write: our write re-created it
        entry.update(path=rel, touched=True, body=body, keys=person_keys(data))
        time.sleep(rng.uniform(0.0, 0.01))
    out.write_text(json.dumps({"state": state, "edits": n_edits, "raced": raced}), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]))
