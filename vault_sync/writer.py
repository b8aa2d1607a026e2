"""Atomic, conditional writes: a note is always old or new, and a newer edit always wins."""

from __future__ import annotations

import errno
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from .errors import UnsafePath, WriteConflict
from .faults import writing
from .rename import exchange
from .safe_files import FIX, NOFOLLOW, link_refused, temp_token

TEMP_MARK = ".mvtmp-"


def temp_name(target: Path | str) -> Path | str:
    """A temp file's name beside `target` (a Path for a Path, a str for a str)."""
    # dot-prefixed so Obsidian and our own walker never see it as a note; the note's name
    # is cut to fit in a 255-byte file name
    folder, name = os.path.split(os.fspath(target))
    stem = name.encode("utf-8", "surrogateescape")[:200].decode("utf-8", "ignore")
    tmp = os.path.join(folder, f".{stem}{TEMP_MARK}{temp_token()}")
    return Path(tmp) if isinstance(target, Path) else tmp


def open_temp(tmp: Path | str, target: Path | str, mode: int = 0o644) -> int:
    """A new temp file, never an existing one: a name already taken (a link or a hard link a
    peer planted) is refused, never opened for writing."""
    try:
        return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, mode)
    except FileExistsError:
        raise UnsafePath(f"a file is already at the temp name beside {note_label(target)} (planted?); {FIX}") from None


@contextmanager
def removed_on_failure(tmp: Path | str) -> Iterator[None]:
    """The block writes `tmp`; if it fails (a full disk, a crash of the step after), the temp
    file goes too, so nothing half-written is left beside the target."""
    try:
        yield
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def is_temp_file(name: str) -> bool:
    return name.startswith(".") and TEMP_MARK in name


def fsync_dir(folder: Path | str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not supported everywhere (Windows)
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(
    target: Path,
    data: bytes,
    mode: int | None = None,
    check: Callable[[], None] | None = None,
    expected_old: bytes | None = None,
) -> bytes | None:
    """Temp file in the same folder, fsync, rename over the target.

    `check` runs after the temp file is on disk and just before the rename; raising there
    abandons the write (the temp file is removed). Where the OS can swap the two names
    atomically, the replaced copy is read back before it is deleted: if it is not
    `expected_old`, someone wrote it after `check` looked, and those bytes are returned.
    """
    tmp = temp_name(target)
    fd = open_temp(tmp, target, 0o644 if mode is None else mode & 0o7777)
    with removed_on_failure(tmp):
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode & 0o7777)
        if check is not None:
            check()
        try:
            swapped = exchange(tmp, target)
        except FileNotFoundError:
            swapped = False  # a new note: nothing to swap with
        if not swapped:
            os.replace(tmp, target)
    late = None
    if swapped:
        late = take_old_copy(tmp, expected_old)
    fsync_dir(target.parent)
    return late


def take_old_copy(old_copy: Path | str, expected: bytes | None) -> bytes | None:
    """Delete the copy a swap left behind; its bytes if they are not `expected`."""
    late = None
    if expected is not None:
        try:
            with open(old_copy, "rb") as fh:
                data = fh.read()
            late = data if data != expected else None
        except OSError:
            pass
    try:
        os.unlink(old_copy)
    except OSError:
        pass
    return late


def create_exclusive(target: Path, data: bytes, durable: bool = True) -> None:
    """A new note, atomically, failing if the name was taken meanwhile. `durable=False`:
    the caller flushes the whole batch to disk itself afterwards (flush_batch)."""
    with writing(note_label(target)):
        _create_exclusive(target, data, durable)


def flush_batch(folders: Iterable[Path]) -> None:
    """Make a batch of non-durable creates durable: one sync of the disk, then the folders."""
    if hasattr(os, "sync"):
        os.sync()
    for folder in folders:
        fsync_dir(folder)


class NewFiles:
    """Creates new notes for a batch (write_path.WritePath.creating), each appearing whole or
    not at all and never over an existing file. On Linux an unnamed file (O_TMPFILE) is
    written and then given its name (linkat, which fails if the name exists): one file
    created instead of a named temp file created, linked and unlinked, about half the time
    per note. Elsewhere, or on a filesystem without it, create_exclusive does the same with
    a named temp file. Not durable: the caller flushes the batch (flush_batch)."""

    _UNSUPPORTED = {errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.EXDEV, errno.ENOENT, errno.EPERM, errno.ENOSYS}

    def __init__(self) -> None:
        self.unnamed = hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd")
        self.dirs: dict[str, int] = {}

    def create(self, target: Path, data: bytes) -> None:
        if self.unnamed:
            try:
                self._unnamed(target, data)
                return
            except OSError as exc:
                if exc.errno not in self._UNSUPPORTED:
                    raise  # FileExistsError, a full disk...: the caller's to handle
                self.unnamed = False
        create_exclusive(target, data, durable=False)

    def _unnamed(self, target: Path, data: bytes) -> None:
        folder = os.fspath(target.parent)
        dfd = self.dirs.get(folder)
        if dfd is None:
            dfd = self.dirs[folder] = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        fd = os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o666)  # the umask applies, as to open()
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.link(f"/proc/self/fd/{fd}", target.name, dst_dir_fd=dfd, follow_symlinks=True)
        finally:
            os.close(fd)

    def close(self) -> None:
        for dfd in self.dirs.values():
            os.close(dfd)
        self.dirs.clear()


def _create_exclusive(target: Path, data: bytes, durable: bool = True) -> None:
    tmp = temp_name(target)
    fd = open_temp(tmp, target)
    with removed_on_failure(tmp), os.fdopen(fd, "wb") as fh:
        fh.write(data)
        if durable:
            fh.flush()
            os.fsync(fh.fileno())
    try:
        os.link(tmp, target)  # fails if target exists: no overwrite race
    except FileExistsError:
        os.unlink(tmp)
        raise
    except OSError:
        # filesystems without hard links: fall back to a checked rename
        if target.exists():
            os.unlink(tmp)
            raise FileExistsError(str(target)) from None
        os.replace(tmp, target)
        if durable:
            fsync_dir(target.parent)
        return
    os.unlink(tmp)
    if durable:
        fsync_dir(target.parent)


@dataclass
class WriteResult:
    written: bool
    data: bytes  # the bytes now on disk (new, or the newer ones we left alone)
    retried: bool = False


def note_label(target: Path | str) -> str:
    """folder/name of a note: enough for a person to find it, never a temp file's name."""
    folder, name = os.path.split(os.fspath(target))
    return f"{os.path.basename(folder)}/{name}" if folder else name


def update_file(
    target: Path,
    expected: bytes,
    transform: Callable[[bytes], bytes | None],
    attempts: int = 3,
) -> WriteResult:
    """Apply `transform` to the note as last read (`expected`) and write it atomically.

    Just before replacing, the file is re-read: if someone changed it since `expected`, the
    transform is re-applied to their newer bytes (it only touches owned keys), up to
    `attempts` times. `transform` returns None to say "nothing to change". A read-only,
    unpermitted or full file system raises a StorageFault naming the note.
    """
    with writing(note_label(target)):
        return _update_file(target, expected, transform, attempts)


def _update_file(
    target: Path, expected: bytes, transform: Callable[[bytes], bytes | None], attempts: int
) -> WriteResult:
    if target.is_symlink():  # the walker never indexes one: a link planted since, maybe pointing out
        raise link_refused(note_label(target))
    current = expected
    retried = False
    for _ in range(attempts):
        new = transform(current)
        if new is None or new == current:
            return WriteResult(False, current, retried)
        try:
            st = os.stat(target)
            on_disk = target.read_bytes()
        except FileNotFoundError:
            raise WriteConflict(f"{target.name}: the note disappeared before it could be written") from None
        if on_disk != current:
            current, retried = on_disk, True
            continue
        changed: list[bytes] = []

        def unchanged_since_read() -> None:
            # the last look, after the slow part (writing and syncing the temp file)
            try:
                latest = target.read_bytes()
            except FileNotFoundError:
                raise WriteConflict(f"{target.name}: the note disappeared before it could be written") from None
            if latest != current:
                changed.append(latest)
                raise _Changed

        try:
            late = write_atomic(target, new, st.st_mode, check=unchanged_since_read, expected_old=current)
        except _Changed:
            current, retried = changed[0], True
            continue
        if late is not None:
            return restore_late_edit(target, new, late, transform, attempts)
        return WriteResult(True, new, retried)
    raise WriteConflict(f"{target.name}: the note kept changing while it was being written; left as it is")


def restore_late_edit(
    target: Path, ours: bytes, late: bytes, transform: Callable[[bytes], bytes | None], attempts: int = 3
) -> WriteResult:
    """A person's write landed between our last look and the swap, so it went to the copy we
    replaced: put it back with our change applied to it (unless they have written again)."""
    redone = transform(late)
    restored = late if redone is None else redone
    result = update_file(target, ours, lambda cur: restored if cur == ours else transform(cur), attempts)
    return WriteResult(True, result.data, True)


class _Changed(Exception):
    pass
