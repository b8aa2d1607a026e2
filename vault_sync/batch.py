"""Many conditional atomic writes at once (a sweep over thousands of notes).

Same guarantees as writer.update_file, note by note: temp file in the same folder, on
disk before the rename, re-read, rename only if unchanged (else re-apply or skip). One
fsync per note costs about 0.3 ms here and milliseconds on many disks, so a large batch
writes every temp file and then flushes the file system once (Linux syncfs); a small one,
or a system without syncfs, fsyncs the files in parallel. Each folder is fsynced once.

Creating a file and freeing a replaced one's blocks is most of the cost (freeing alone is
~80 us on a disk mounted with `discard`). So where the OS can, the new file is swapped in
atomically (RENAME_EXCHANGE), which leaves the old copy under the temp name; once it is
checked (it still holds what we read, and nothing else has it open) it becomes the temp
file of a later note in the same folder, written over in place. The copies left at the end
are deleted by a thread.
"""

from __future__ import annotations

import os
import queue
import stat
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .errors import WriteConflict, storage_fault
from .rename import exchange, linux_call
from .writer import fsync_dir, open_temp, restore_late_edit, take_old_copy, temp_name, update_file

try:
    import fcntl

    _HAS_FCNTL = True
except ImportError:  # Windows: no leases, and no exchange to leave old copies anyway
    _HAS_FCNTL = False

FSYNC_THREADS = 16
# below this many files, per-file fsyncs cost less than flushing the file system (it depends on
# the disk: `python -m bridge.bench.thresholds --files N --dir A_FOLDER_ON_IT` re-measures it)
SYNCFS_FROM = 64

# (target as staged, bytes on disk now) -> the bytes to write instead (None: leave it)
Rewrite = Callable[[Path | str, bytes], bytes | None]


@dataclass
class Staged:
    target: Path | str
    expected: bytes
    new: bytes
    tmp: Path | str | None = None
    mode: int | None = None  # the note's permission bits; looked up when not given
    owner: tuple[int, int] | None = None  # the note's (uid, gid): an old copy is reused only for the same
    stat: os.stat_result | None = None  # of the bytes we wrote: set when the rename put them in place
    meta: object = None  # the caller's


_SYNCFS = linux_call("syncfs")


def syncfs(folder: Path | str) -> bool:
    """Flush the file system holding `folder` (waits for the data); False when we could not."""
    if _SYNCFS is None:
        return False
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return False
    try:
        status: int = _SYNCFS(fd)  # a ctypes call: untyped
        return status == 0
    finally:
        os.close(fd)


def _stage(item: Staged, fsync: bool = True, fd: int | None = None) -> Staged:
    """Write the item's new bytes to a temp file: `fd`, an old copy opened for it, or a new file."""
    reused = fd is not None
    if fd is None:
        tmp = temp_name(item.target)
        fd = open_temp(tmp, item.target, (0o644 if item.mode is None else item.mode) & 0o7777)
        item.tmp = tmp  # only once it is ours: a name found taken is never deleted
    try:
        if reused:
            os.lseek(fd, 0, os.SEEK_SET)  # the check read it to the end
        view, at = memoryview(item.new), 0
        while at < len(view):  # os.write may write less than asked
            at += os.write(fd, view[at:])
        if reused:
            os.ftruncate(fd, at)  # the old copy may be longer; cut before the flush covers it
        if fsync:
            os.fsync(fd)
        item.stat = os.fstat(fd)  # a rename keeps mtime and size: this is what the index may record
    finally:
        os.close(fd)
    return item


def _owner(item: Staged) -> tuple[int, int]:
    """Who the note belongs to; a new file would be ours."""
    return item.owner if item.owner is not None else (os.geteuid(), os.getegid())


def sole_holder(fd: int) -> bool:
    """True when no other open file (in any process) refers to this one's inode: the kernel
    grants a write lease only then. Released at once; we only want the answer."""
    if not _HAS_FCNTL or not hasattr(fcntl, "F_SETLEASE"):
        return False
    try:
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
    except OSError:
        return False
    try:
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
    except OSError:
        pass
    return True


class OldCopies:
    """The old copies that exchanges left behind: spares to write later notes into, and a
    thread deleting the ones not reused; leaving the block deletes the rest and waits.

    Each old copy is compared with what we read before it is reused or deleted: a person's
    write that landed between our last look and the swap is there, and is kept in `late` as
    (item, their bytes) for the caller to put back. A copy is reused only when it is a plain
    file with one name, the same owner as the note it will become, and no other open file
    refers to it, so no late writer can reach the note we put it in.
    """

    def __init__(self) -> None:
        # (old copy, the item whose swap left it or None) to delete; None stops the thread
        self._queue: queue.SimpleQueue[tuple[Path | str, Staged | None] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._spares: dict[str, list[tuple[str, Staged]]] = {}
        self.late: list[tuple[Staged, bytes]] = []

    def put(self, path: Path | str, item: "Staged | None" = None, spare: bool = False) -> None:
        if spare and item is not None:
            self._spares.setdefault(os.path.dirname(path), []).append((os.fspath(path), item))
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="mnemovault-old-copies", daemon=True)
            self._thread.start()
        self._queue.put((path, item))

    def _run(self) -> None:
        while (job := self._queue.get()) is not None:
            path, item = job
            late = take_old_copy(path, item.expected if item is not None else None)
            if late is not None and item is not None:  # no item, no expected bytes: never late
                self.late.append((item, late))

    def reuse(self, item: Staged) -> int | None:
        """An open spare in the item's folder to write its new bytes into (item.tmp is set), or None."""
        spares = self._spares.get(os.path.dirname(item.target))
        while spares:
            path, old = spares.pop()
            fd = self._checked(path, old, item)
            if fd is not None:
                item.tmp = path
                return fd
        return None

    def _checked(self, path: str, old: Staged, item: Staged) -> int | None:
        try:
            fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        compared = False
        try:
            st = os.fstat(fd)
            chunks, want = [], st.st_size + 1
            while chunk := os.read(fd, want):
                chunks.append(chunk)
            data = b"".join(chunks)
            compared = True
            if data != old.expected:
                self.late.append((old, data))
            elif (
                stat.S_ISREG(st.st_mode)
                and st.st_nlink == 1
                and (st.st_uid, st.st_gid) == _owner(item)
                and sole_holder(fd)
            ):
                mode = (0o644 if item.mode is None else item.mode) & 0o7777
                if stat.S_IMODE(st.st_mode) != mode:
                    os.fchmod(fd, mode)
                return fd
        except OSError:
            pass
        os.close(fd)
        self.put(path, None if compared else old)  # not reused: deleted (compared there if not here)
        return None

    def restore(self, transform: Rewrite) -> list[Staged]:
        """Put back the late edits (call after the block): their bytes with our change applied."""
        restored = []
        for item, late in self.late:
            try:
                restore_late_edit(Path(item.target), item.new, late, _bound(transform, item.target))
            except (WriteConflict, OSError, ValueError):
                pass  # the note moved on again: what is on disk now is theirs
            item.stat = None  # the index must read it again
            restored.append(item)
        self.late = []
        return restored

    def __enter__(self) -> "OldCopies":
        return self

    def __exit__(self, *exc: object) -> None:
        for spares in self._spares.values():
            for path, item in spares:
                self.put(path, item)
        self._spares.clear()
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None


def write_many(
    items: list[Staged], transform: Rewrite, old_copies: OldCopies | None = None
) -> tuple[list[Staged], list[tuple[Staged, str]]]:
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


def _write_many(
    items: list[Staged], transform: Rewrite, old_copies: OldCopies
) -> tuple[list[Staged], list[tuple[Staged, str]]]:
    written: list[Staged] = []
    errors: list[tuple[Staged, str]] = []
    for item in items:
        if item.mode is None:
            try:
                st = os.stat(item.target)
                item.mode, item.owner = st.st_mode, (st.st_uid, st.st_gid)
            except OSError:
                pass
    staged: list[tuple[Staged, str | None]] | None = None
    if len(items) >= SYNCFS_FROM and _SYNCFS is not None:
        staged = [_stage_safe(item, False, old_copies.reuse(item)) for item in items]
        if not _synced_devices(items):
            for item, err in staged:
                if err is None:
                    _drop(item)
            staged = None
    if staged is None:
        spares = [old_copies.reuse(item) for item in items]  # here: the checks are not thread-safe
        with ThreadPoolExecutor(max_workers=FSYNC_THREADS) as pool:
            staged = list(pool.map(_stage_safe, items, [True] * len(items), spares))
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
            tmp = item.tmp
            assert tmp is not None  # a staged item without an error has its temp file
            try:
                if exchange(tmp, item.target):
                    old_copies.put(tmp, item, spare=True)
                else:
                    os.replace(tmp, item.target)
            except OSError as exc:
                _drop(item)
                errors.append((item, _cause(exc)))
                continue
            folders.add(os.path.dirname(item.target))
            written.append(item)
            continue
        _drop(item)  # the person edited it meanwhile: re-apply to their newer text
        try:
            if update_file(Path(item.target), current, _bound(transform, item.target)).written:
                written.append(item)
        except (WriteConflict, OSError, ValueError) as exc:
            errors.append((item, str(exc)))
    for folder in folders:
        fsync_dir(folder)
    return written, errors


def _bound(transform: Rewrite, target: Path | str) -> Callable[[bytes], bytes | None]:
    """The transform for one note, as the one-by-one writer calls it."""
    return lambda current: transform(target, current)


def _synced_devices(items: list[Staged]) -> bool:
    """syncfs once per file system the items live on; False if any could not be flushed."""
    by_device: dict[int, str] = {}
    for folder in {os.path.dirname(item.target) for item in items}:
        try:
            by_device.setdefault(os.stat(folder).st_dev, folder)
        except OSError:
            return False
    return all(syncfs(folder) for folder in by_device.values())


def _stage_safe(item: Staged, fsync: bool = True, fd: int | None = None) -> tuple[Staged, str | None]:
    try:
        return _stage(item, fsync, fd), None
    except OSError as exc:
        _drop(item)
        return item, _cause(exc)


def _drop(item: Staged) -> None:
    if item.tmp is not None:
        try:
            os.unlink(item.tmp)
        except OSError:
            pass
        item.tmp = None
    item.stat = None


def _cause(exc: OSError) -> str:
    """Why a note could not be written, without the temp file's name."""
    fault = storage_fault(exc, "it")
    return str(fault) if fault is not None else f"cannot write: {exc.strerror or exc}"
