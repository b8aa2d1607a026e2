"""export: every memory with its text, owned keys, links and path, read from the vault
(the source of truth) as JSON lines or CSV. The JSON lines keep each note's frontmatter
block verbatim, so `import jsonl` rebuilds the same notes byte for byte. CSV cells that a
spreadsheet would run as a formula are neutralised; `write_out` writes the file as carefully
as the engine writes a note (never into the vault, never over a special file, atomically,
an existing file replaced only when asked and keeping its mode)."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
from datetime import date, datetime
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..dates import format_datetime
from ..engine import Engine
from ..errors import InvalidInput, WrongState
from ..faults import writing
from ..fmblock import find_block
from ..index import queries
from ..limits import quote
from ..note import OWNED_KEYS, parse_note
from ..rename import exchange, rename_noreplace
from ..writer import fsync_dir, open_temp, removed_on_failure, temp_name

SCOPES = {"stm": ("stm",), "ltm": ("ltm",), "all": ("stm", "ltm", "archive")}
FORMATS = ("jsonl", "csv")
CSV_COLUMNS = (
    "path",
    "kind",
    "id",
    "title",
    "tags",
    "created",
    "last_used",
    "use_count",
    "strength",
    "status",
    "decay_score",
    "source",
    "source_id",
    "links",
    "text",
)


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return format_datetime(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def records(engine: Engine, scope: str = "all") -> Iterator[dict[str, Any]]:
    if scope not in SCOPES:
        raise InvalidInput(f"scope must be one of {', '.join(SCOPES)}, got {quote(scope)}")
    for row in queries.export_rows(engine.store, SCOPES[scope]):
        if row["id"] is None:
            continue  # not a memory (the generated LTM index, a note without frontmatter)
        try:
            data = engine.layout.abs(row["path"]).read_bytes()
        except OSError:
            continue  # gone since the last sync: the index catches up on its own
        note = parse_note(row["path"], data)
        block = find_block(note.text) if note.has_frontmatter else None
        yield {
            "path": row["path"],
            "kind": row["kind"],
            "id": note.fields.id,
            "title": note.title,
            "owned": {k: _plain(note.frontmatter[k]) for k in OWNED_KEYS if k in note.frontmatter},
            "source": row["source"],
            "source_id": row["source_id"],
            "links": [link.target for link in note.links],
            "frontmatter": note.text[block.yaml_start : block.yaml_end] if block else "",
            "text": note.body,
        }


def to_jsonl(engine: Engine, scope: str = "all") -> Iterator[str]:
    for rec in records(engine, scope):
        yield json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n"


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A text cell a spreadsheet would read as a formula, with a leading apostrophe (so it
    shows as text); numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def to_csv(engine: Engine, scope: str = "all") -> Iterator[str]:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(CSV_COLUMNS)
    for rec in records(engine, scope):
        owned = rec["owned"]
        tags = owned.get("tags")
        writer.writerow(
            [
                csv_cell(cell)
                for cell in (
                    rec["path"],
                    rec["kind"],
                    rec["id"],
                    rec["title"],
                    ";".join(tags) if isinstance(tags, list) else tags or "",
                    owned.get("created", ""),
                    owned.get("last_used", ""),
                    owned.get("use_count", ""),
                    owned.get("strength", ""),
                    owned.get("status", ""),
                    owned.get("decay_score", ""),
                    rec["source"] or "",
                    rec["source_id"] or "",
                    ";".join(rec["links"]),
                    rec["text"],
                )
            ]
        )
        yield buf.getvalue()
        buf.seek(0)
        buf.truncate()
    if buf.getvalue():
        yield buf.getvalue()


def export(engine: Engine, fmt: str = "jsonl", scope: str = "all") -> Iterator[str]:
    if fmt not in FORMATS:
        raise InvalidInput(f"format must be one of {', '.join(FORMATS)}, got {quote(fmt)}")
    return to_jsonl(engine, scope) if fmt == "jsonl" else to_csv(engine, scope)


_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
    stat.S_IFLNK: "a symbolic link",
}


def check_out(out: Path, vault_root: Path, force: bool) -> os.stat_result | None:
    """Where an export may be written: outside the vault (else it would be read as notes), a
    new name or, with `force`, a regular file (never a link, FIFO or device). The stat of
    the file to replace, or None for a new one."""
    out = Path(os.path.abspath(out))
    real_root = os.path.realpath(vault_root)
    real = os.path.join(os.path.realpath(out.parent), out.name)
    if real == real_root or real.startswith(real_root + os.sep):
        raise InvalidInput(
            f"{out} is inside the vault {vault_root}: the export would be read as notes; write it outside the vault"
        )
    try:
        st = os.lstat(out)
    except FileNotFoundError:
        if not os.path.isdir(out.parent):
            raise InvalidInput(f"{out.parent} is not a folder") from None
        return None
    kind = _KINDS.get(stat.S_IFMT(st.st_mode))
    if kind is not None:
        raise InvalidInput(f"{out} is {kind}; export writes regular files only")
    if not force:
        raise WrongState(f"{out} exists; pass --force to replace it (its permissions are kept)")
    return st


def write_out(out: Path, vault_root: Path, chunks: Iterable[str], force: bool = False) -> None:
    """Write `chunks` to `out` atomically (a complete file or none): a temp file beside it,
    synced, then renamed over it; a new file is private (0600: it holds every memory)."""
    out = Path(os.path.abspath(out))
    old = check_out(out, vault_root, force)
    tmp = Path(temp_name(out))
    with writing(str(out)):
        fd = open_temp(tmp, out, 0o600)  # new, random, never through a link
        with removed_on_failure(tmp):
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                for chunk in chunks:
                    fh.write(chunk)
                fh.flush()
                os.fsync(fh.fileno())
            if old is None:
                try:
                    rename_noreplace(tmp, out)
                except FileExistsError:
                    raise WrongState(f"{out} was created meanwhile; not replacing it") from None
            else:
                _replace(tmp, out, old)
    fsync_dir(out.parent)


def _replace(tmp: Path, out: Path, old: os.stat_result) -> None:
    """Put `tmp` in place of the regular file `old` names, with its mode (and owner, where
    allowed); refuse if another file took that name since it was checked."""
    os.chmod(tmp, stat.S_IMODE(old.st_mode))
    if (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
        try:
            os.chown(tmp, old.st_uid, old.st_gid)
        except OSError:
            pass  # not ours to give away: the mode is still kept
    changed = WrongState(f"{out} changed while exporting; not replacing it")
    try:
        swapped = exchange(tmp, out)
    except FileNotFoundError:
        raise changed from None
    if swapped:  # one atomic swap, then check what was swapped out
        now = os.lstat(tmp)
        if (now.st_dev, now.st_ino) != (old.st_dev, old.st_ino):
            exchange(tmp, out)  # put the newcomer back
            raise changed
        os.unlink(tmp)  # the old export, replaced as asked
        return
    try:
        now = os.lstat(out)
    except FileNotFoundError:
        raise changed from None
    if (now.st_dev, now.st_ino) != (old.st_dev, old.st_ino):
        raise changed
    os.replace(tmp, out)
