"""Many conditional atomic writes at once (a sweep over thousands of notes).

Same guarantees as writer.update_file, note by note: temp file in the same folder, on
disk before the rename, re-read, rename only if unchanged (else re-apply or skip). One
fsync per note costs about 0.3 ms here and milliseconds on many disks, so a large batch
writes every temp file and then flushes the file system once (Linux syncfs); a small one,
or a system without syncfs, fsyncs the files in parallel. Each folder is fsynced once.

Replacing a file frees the old copy's blocks inside the rename, which costs ~80 us on a
disk mounted with `discard`; so where the OS can, the new file is swapped in atomically
(RENAME_EXCHANGE) and the old copy, now under the temp name, is deleted by a thread while
the caller prepares its next chunk.
"""

from __future__ import annotations

import os
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .errors import WriteConflict
from .rename import exchange, linux_call
from .writer import fsync_dir, restore_late_edit, take_old_copy, temp_name, update_file

FSYNC_THREADS = 16
SYNCFS_FROM = 64  # below this many files, per-file fsyncs cost less than flushing the file system


@dataclass
class Staged:
    target: Path | str
    expected: bytes
    new: bytes
    tmp: Path | str | None = None
    mode: int | None = None  # the note's permission bits; looked up when not given
    stat: os.stat_result | None = None  # of the bytes we wrote: set when the rename put them in place
    meta: object = None  # the caller's


_SYNCFS = linux_call("syncfs")


def syncfs(folder: Path) -> bool:
    """Flush the file system holding `folder` (waits for the data); False when we could not."""
    if _SYNCFS is None:
        return False
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return False
    try:
        return _SYNCFS(fd) == 0
    finally:
        os.close(fd)


def _stage(item: Staged, fsync: bool = True) -> Staged:
    item.tmp = temp_name(item.target)
    fd = os.open(item.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, (0o644 if item.mode is None else item.mode) & 0o7777)
    try:
        view = memoryview(item.new)
        while view:  # os.write may write less than asked
            view = view[os.write(fd, view):]
        if fsync:
            os.fsync(fd)
        item.stat = os.fstat(fd)  # a rename keeps mtime and size: this is what the index may record
    finally:
        os.close(fd)
    return item


class OldCopies:
    """A thread deleting the old copies that exchanges left behind; leaving the block waits for it.

    Each old copy is compared with what we read before it is deleted: a person's write that
    landed between our last look and the swap is there, and is kept in `late` as
    (item, their bytes) for the caller to put back.
    """

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.late: list[tuple[Staged, bytes]] = []

    def put(self, path: Path, item: "Staged | None" = None) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="mnemovault-old-copies", daemon=True)
            self._thread.start()
        self._queue.put((path, item))

    def _run(self) -> None:
        while (job := self._queue.get()) is not None:
            path, item = job
            late = take_old_copy(path, item.expected if item is not None else None)
            if late is not None:
                self.late.append((item, late))

    def restore(self, transform: Callable[[Path, bytes], bytes | None]) -> list[Staged]:
        """Put back the late edits (call after the block): their bytes with our change applied."""
        restored = []
        for item, late in self.late:
            try:
                restore_late_edit(Path(item.target), item.new, late, lambda b, t=item.target: transform(t, b))
            except (WriteConflict, OSError, ValueError):
                pass  # the note moved on again: what is on disk now is theirs
            item.stat = None  # the index must read it again
            restored.append(item)
        self.late = []
        return restored

    def __enter__(self) -> "OldCopies":
        return self

    def __exit__(self, *exc) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None


def write_many(items: list[Staged], transform: Callable[[Path, bytes], bytes | None],
               old_copies: OldCopies | None = None) -> tuple[list[Staged], list[tuple[Staged, str]]]:
    """Write each item's `new` bytes where the file still holds `expected`.

    Where a file changed meanwhile, `transform(target, current)` is re-applied through the
    one-by-one path. Returns (written items, [(item, error)]); a written item's `stat` is
    set when its staged bytes were renamed into place, None when it was re-applied.
    `old_copies`: the caller's cleaner, shared across chunks; without one, this call
    deletes its own old copies before it returns.
    """
    if old_copies is None:
        with OldCopies() as own:
            result = _write_many(items, transform, own)
        own.restore(transform)
        return result
    return _write_many(items, transform, old_copies)


def _write_many(items: list[Staged], transform, old_copies: OldCopies) -> tuple[list[Staged], list[tuple[Staged, str]]]:
    written: list[Staged] = []
    errors: list[tuple[Staged, str]] = []
    for item in items:
        if item.mode is None:
            try:
                item.mode = os.stat(item.target).st_mode
            except OSError:
                pass
    staged = None
    if len(items) >= SYNCFS_FROM and _SYNCFS is not None:
        staged = [_stage_safe(item, fsync=False) for item in items]
        if not _synced_devices(items):
            for item, err in staged:
                if err is None:
                    _drop(item)
            staged = None
    if staged is None:
        with ThreadPoolExecutor(max_workers=FSYNC_THREADS) as pool:
            staged = list(pool.map(_stage_safe, items))
    folders: set[str] = set()
    for item, err in staged:
        if err is not None:
            errors.append((item, err))
            continue
        try:
            with open(item.target, "rb") as fh:
                current = fh.read()
        except OSError as exc:
            _drop(item)
            errors.append((item, f"vanished before it could be written ({exc.strerror or exc})"))
            continue
        if current == item.expected:
            try:
                if exchange(item.tmp, item.target):
                    old_copies.put(item.tmp, item)
                else:
                    os.replace(item.tmp, item.target)
            except OSError as exc:
                _drop(item)
                errors.append((item, f"cannot write: {exc.strerror or exc}"))
                continue
            folders.add(os.path.dirname(item.target))
            written.append(item)
            continue
        _drop(item)  # the person edited it meanwhile: re-apply to their newer text
        try:
            if update_file(Path(item.target), current, lambda b, t=item.target: transform(t, b)).written:
                written.append(item)
        except (WriteConflict, OSError, ValueError) as exc:
            errors.append((item, str(exc)))
    for folder in folders:
        fsync_dir(folder)
    return written, errors


def _synced_devices(items: list[Staged]) -> bool:
    """syncfs once per file system the items live on; False if any could not be flushed."""
    by_device: dict[int, Path] = {}
    for folder in {os.path.dirname(item.target) for item in items}:
        try:
            by_device.setdefault(os.stat(folder).st_dev, folder)
        except OSError:
            return False
    return all(syncfs(folder) for folder in by_device.values())


def _stage_safe(item: Staged, fsync: bool = True) -> tuple[Staged, str | None]:
    try:
        return _stage(item, fsync), None
    except OSError as exc:
        _drop(item)
        return item, f"cannot write: {exc.strerror or exc}"


def _drop(item: Staged) -> None:
    if item.tmp is not None:
        try:
            os.unlink(item.tmp)
        except OSError:
            pass
        item.tmp = None
    item.stat = None
