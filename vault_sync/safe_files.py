"""Files the engine and the daemon create or replace, opened so that no write follows a link.

The vault is shared with sync tools (Syncthing, git, cloud drives) that carry symbolic links,
so any name the engine writes (a lock, the lease, a journal entry, a temp file) may have a
link planted in its place by a peer. Every such write goes through here:

- the folders from the vault's root down are opened one at a time without following a link
  (`open_folder`), so a linked folder is refused instead of written through;
- a temp file is new (O_CREAT | O_EXCL | O_NOFOLLOW) under a random name, so nothing already
  there (a link, a hard link) is ever opened for writing;
- a file replaced must be a regular file with one name (no symbolic link, no hard link to a
  file elsewhere), and is replaced by a rename, which never writes through a name.

A refusal is an `UnsafePath` (an engine error) naming the vault path and what to do.
Standard library only besides errors.py: the daemon's lock (bridge/vault_lock.py) uses it.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Iterator

from .errors import UnsafePath

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_DIR_FDS = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd and NOFOLLOW != 0  # os.replace: as rename
_LINK_ERRNOS = {errno.ELOOP, errno.ENOTDIR, errno.EMLINK}  # O_NOFOLLOW met a link (EMLINK: FreeBSD)
FIX = "remove it (mnemovault never writes through a link), then try again"


def temp_token() -> str:
    """A random part for a temp file's name: a peer cannot plant a link at a name it cannot guess."""
    return secrets.token_hex(8)


def link_refused(label: str, what: str = "a symbolic link") -> UnsafePath:
    return UnsafePath(f"{label} is {what}; {FIX}")


def check_real_folder(root: Path, rel: str, label: str | None = None) -> None:
    """Every folder of `rel` (vault-relative, posix) below the root is a real folder, not a link,
    and resolves inside the vault; a missing one is fine (it is made safely when written)."""
    current = Path(root)
    real_root = os.path.realpath(root)
    for part in PurePosixPath(rel).parts:
        current = current / part
        shown = label or f"{current.relative_to(root).as_posix()}/"
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise UnsafePath(f"{shown}: cannot be checked ({exc.strerror or exc})") from None
        if stat.S_ISLNK(st.st_mode):
            raise UnsafePath(
                f"{shown} is a symbolic link (to {os.readlink(current)}); mnemovault writes only in real folders "
                "inside the vault: replace the link with a folder (move its files in), then start again"
            )
        if not stat.S_ISDIR(st.st_mode):
            raise UnsafePath(f"{shown} is not a folder; move that file away, then start again")
    real = os.path.realpath(current)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise UnsafePath(f"{label or rel + '/'} resolves outside the vault; replace it with a folder inside the vault")


def open_folder(root: Path, rel: str, make: bool = True) -> int:
    """A descriptor of the vault folder `rel` ("" for the root), each step opened without
    following a link; missing folders are made when `make`. UnsafePath when a step is a link
    or a file; FileNotFoundError when missing and not `make`. The caller closes it."""
    fd = os.open(root, os.O_RDONLY | _DIRECTORY)  # the vault itself may be reached through a link
    done = ""
    try:
        for part in PurePosixPath(rel).parts:
            done = f"{done}{part}/"
            try:
                nxt = os.open(part, os.O_RDONLY | _DIRECTORY | NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not make:
                    raise
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass  # made meanwhile: opened (and checked) below
                nxt = _open_step(part, fd, done)
            except OSError as exc:
                if exc.errno in _LINK_ERRNOS:
                    raise _not_a_folder(part, fd, done) from None
                raise
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_step(part: str, fd: int, done: str) -> int:
    try:
        return os.open(part, os.O_RDONLY | _DIRECTORY | NOFOLLOW, dir_fd=fd)
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS:
            raise _not_a_folder(part, fd, done) from None
        raise


def _not_a_folder(part: str, fd: int, done: str) -> UnsafePath:
    try:
        is_link = stat.S_ISLNK(os.stat(part, dir_fd=fd, follow_symlinks=False).st_mode)
    except OSError:
        is_link = False
    if is_link:
        return UnsafePath(
            f"{done} is a symbolic link; mnemovault writes only in real folders inside the vault: "
            "replace the link with a folder, then try again"
        )
    return UnsafePath(f"{done} is not a folder; move that file away, then try again")


@contextmanager
def folder_of(root: Path, rel: str, make: bool = True) -> Iterator[tuple[int, str]]:
    """(descriptor of the folder holding `rel`, the file's name in it), closed at the end."""
    parent, _, name = rel.rpartition("/")
    fd = open_folder(root, parent, make)
    try:
        yield fd, name
    finally:
        os.close(fd)


def check_replaceable(fd: int, name: str, rel: str) -> os.stat_result | None:
    """The stat of the file `name` in folder `fd` when it may be replaced (a regular file with one
    name), None when there is none; UnsafePath for a link, a hard link or anything else."""
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise link_refused(rel)
    if not stat.S_ISREG(st.st_mode):
        raise UnsafePath(f"{rel} is not a regular file; move it away, then try again")
    if st.st_nlink > 1:
        raise link_refused(rel, "a hard link (the same file has another name, maybe outside the vault)")
    return st


def create_temp(fd: int, name: str, rel: str, mode: int = 0o644) -> tuple[int, str]:
    """A new temp file beside `name` in folder `fd`, never an existing one: (its descriptor, its name)."""
    tmp = f".{name[:200]}.{temp_token()}.tmp"
    try:
        return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, mode, dir_fd=fd), tmp
    except FileExistsError:
        raise UnsafePath(f"a file is already at the temp name beside {rel} (planted?); {FIX}") from None


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def replace_file(root: Path, rel: str, data: bytes, mode: int = 0o644, make: bool = True) -> None:
    """Write the vault file `rel` atomically: a new temp file, synced, renamed over the old one,
    which must be a regular file with one name. Nothing outside the vault changes."""
    if not _DIR_FDS:  # pragma: no cover - Windows: no links a sync tool plants, no dir fds
        _replace_by_path(Path(root) / PurePosixPath(rel), data, mode)
        return
    with folder_of(root, rel, make) as (dfd, name):
        check_replaceable(dfd, name, rel)
        fd, tmp = create_temp(dfd, name, rel, mode)
        try:
            try:
                write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            check_replaceable(dfd, name, rel)  # the last look before the rename
            os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
            raise


def _replace_by_path(path: Path, data: bytes, mode: int) -> None:  # pragma: no cover - Windows
    tmp = path.with_name(f".{path.name}.{temp_token()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read_file(root: Path, rel: str) -> bytes:
    """The bytes of the vault file `rel`, read without following a link (UnsafePath for one)."""
    if not _DIR_FDS:  # pragma: no cover - Windows
        return (Path(root) / PurePosixPath(rel)).read_bytes()
    with folder_of(root, rel, make=False) as (dfd, name):
        try:
            fd = os.open(name, os.O_RDONLY | NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=dfd)
        except OSError as exc:
            if exc.errno in _LINK_ERRNOS:
                raise link_refused(rel) from None
            raise
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise UnsafePath(f"{rel} is not a regular file; move it away, then try again")
            return fh.read()


def list_folder(root: Path, rel: str) -> list[str]:
    """The names in the vault folder `rel`, reached without following a link (UnsafePath for
    one); [] when the folder is missing."""
    if not _DIR_FDS:  # pragma: no cover - Windows
        try:
            return sorted(os.listdir(Path(root) / PurePosixPath(rel)))
        except FileNotFoundError:
            return []
    try:
        fd = open_folder(root, rel, make=False)
    except FileNotFoundError:
        return []
    try:
        return sorted(os.listdir(fd))
    finally:
        os.close(fd)


def remove_file(root: Path, rel: str) -> None:
    """Delete the vault file `rel` (the name only: a link is removed, never its target)."""
    if not _DIR_FDS:  # pragma: no cover - Windows
        (Path(root) / PurePosixPath(rel)).unlink()
        return
    with folder_of(root, rel, make=False) as (dfd, name):
        os.unlink(name, dir_fd=dfd)


def open_lock(root: Path, rel: str) -> int:
    """The lock file `rel`, opened read-write and created if missing, refused if it is a link, a
    hard link or not a regular file (a lock's content is rewritten in place)."""
    if not _DIR_FDS:  # pragma: no cover - Windows
        path = Path(root) / PurePosixPath(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    with folder_of(root, rel) as (dfd, name):
        try:
            fd = os.open(name, os.O_RDWR | os.O_CREAT | NOFOLLOW | getattr(os, "O_NONBLOCK", 0), 0o644, dir_fd=dfd)
        except OSError as exc:
            if exc.errno in _LINK_ERRNOS:
                raise link_refused(rel) from None
            raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        os.close(fd)
        what = "a hard link (the same file has another name, maybe outside the vault)"
        raise link_refused(rel, what) if stat.S_ISREG(st.st_mode) else UnsafePath(f"{rel} is not a regular file")
    return fd
