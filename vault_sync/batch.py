"""Many conditional atomic writes at once (a sweep over thousands of notes).

Same guarantees as writer.update_file, note by note: temp file in the same folder, fsync,
re-read, rename only if unchanged (else re-apply or skip). The fsyncs run in parallel and
each folder is fsynced once, because one fsync per note costs milliseconds on most disks.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .errors import WriteConflict
from .writer import temp_name, update_file

FSYNC_THREADS = 16


@dataclass
class Staged:
    target: Path
    expected: bytes
    new: bytes
    tmp: Path | None = None
    mode: int = 0o644


def _stage(item: Staged) -> Staged:
    item.tmp = temp_name(item.target)
    fd = os.open(item.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, item.mode & 0o7777)
    try:
        os.write(fd, item.new)
        os.fsync(fd)
    finally:
        os.close(fd)
    return item


def write_many(items: list[Staged], transform: Callable[[Path, bytes], bytes | None]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Write each item's `new` bytes where the file still holds `expected`.

    Where a file changed meanwhile, `transform(target, current)` is re-applied through the
    one-by-one path. Returns (written targets, [(target, error)]).
    """
    written: list[Path] = []
    errors: list[tuple[Path, str]] = []
    for item in items:
        try:
            item.mode = os.stat(item.target).st_mode
        except OSError:
            pass
    with ThreadPoolExecutor(max_workers=FSYNC_THREADS) as pool:
        staged = list(pool.map(_stage_safe, items))
    folders: set[Path] = set()
    for item, err in staged:
        if err is not None:
            errors.append((item.target, err))
            continue
        try:
            current = item.target.read_bytes()
        except OSError as exc:
            _drop(item)
            errors.append((item.target, f"vanished before it could be written ({exc.strerror or exc})"))
            continue
        if current == item.expected:
            os.replace(item.tmp, item.target)
            folders.add(item.target.parent)
            written.append(item.target)
            continue
        _drop(item)  # the person edited it meanwhile: re-apply to their newer text
        try:
            if update_file(item.target, current, lambda b, t=item.target: transform(t, b)).written:
                written.append(item.target)
        except (WriteConflict, OSError, ValueError) as exc:
            errors.append((item.target, str(exc)))
    for folder in folders:
        try:
            fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError:
            pass
    return written, errors


def _stage_safe(item: Staged) -> tuple[Staged, str | None]:
    try:
        return _stage(item), None
    except OSError as exc:
        _drop(item)
        return item, f"cannot write: {exc.strerror or exc}"


def _drop(item: Staged) -> None:
    if item.tmp is not None:
        try:
            os.unlink(item.tmp)
        except OSError:
            pass
