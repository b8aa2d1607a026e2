"""Moving a file to a name that must not exist yet, in one atomic step where the OS can."""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

_AT_FDCWD = -100
_RENAME_NOREPLACE = 1


@lru_cache(maxsize=None)
def linux_call(name: str) -> Any:
    """A Linux libc function the os module lacks (renameat2, syncfs); None elsewhere."""
    if not hasattr(os, "uname") or os.uname().sysname != "Linux":
        return None
    try:
        return getattr(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True), name)
    except (OSError, AttributeError):
        return None


@lru_cache(maxsize=1)
def _renameat2() -> Any:
    fn = linux_call("renameat2")
    if fn is not None:
        fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
        fn.restype = ctypes.c_int
    return fn


def rename_noreplace(src: Path, dst: Path) -> None:
    """Rename `src` to `dst`, raising FileExistsError if `dst` exists.

    Linux: renameat2(RENAME_NOREPLACE), so the file has exactly one name at every instant.
    Elsewhere (or where the filesystem refuses the flag): hard link, then unlink; a crash
    between the two leaves one file under two names, which the move journal repairs.
    """
    fn = _renameat2()
    if fn is not None:
        if fn(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), _RENAME_NOREPLACE) == 0:
            return
        err = ctypes.get_errno()
        if err == errno.EEXIST:
            raise FileExistsError(errno.EEXIST, "file exists", str(dst))
        if err not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            raise OSError(err, os.strerror(err), str(src))
    try:
        os.link(src, dst)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(dst):
            raise FileExistsError(errno.EEXIST, "file exists", str(dst)) from None
        os.rename(src, dst)  # no hard links here (some network filesystems)
        return
    os.unlink(src)


_RENAME_EXCHANGE = 2
_exchange_works = True


def exchange(src: Path | str, dst: Path | str) -> bool:
    """Swap two existing names in one atomic step (Linux renameat2 RENAME_EXCHANGE).

    Replacing a note this way leaves its old copy under `src` instead of freeing it inside
    the rename, so the caller can check it, then reuse or delete it. False: not available
    here (the caller renames the usual way); OSError: a real failure (e.g. `dst` vanished).
    """
    global _exchange_works
    fn = _renameat2()
    if fn is None or not _exchange_works:
        return False
    if fn(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        _exchange_works = False
        return False
    raise OSError(err, os.strerror(err), str(dst))
