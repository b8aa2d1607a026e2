"""OS write failures as engine errors: which note, and why, in words a person can act on."""

from __future__ import annotations

import errno
from contextlib import contextmanager
from typing import Iterator

from .errors import DiskFull, PermissionDenied, StorageFault, VaultReadOnly

# errno -> (error class, cause, what to do)
_FAULTS = {
    errno.EROFS: (VaultReadOnly, "the vault's file system is read-only", "mount it writable"),
    errno.EACCES: (PermissionDenied, "permission denied", "check the file's and folder's permissions"),
    errno.EPERM: (
        PermissionDenied,
        "the operation is not permitted (an immutable or locked file?)",
        "check the file's permissions and attributes",
    ),
    errno.ENOSPC: (DiskFull, "the disk is full", "free some space"),
    errno.EDQUOT: (DiskFull, "the disk quota is exceeded", "free some space"),
}


def storage_fault(exc: BaseException, what: str) -> StorageFault | None:
    """The engine error for an OSError the file system raised while writing `what`; None when
    the error is not a storage fault (a missing file, a name taken: callers handle those)."""
    if isinstance(exc, StorageFault):
        return exc
    if not isinstance(exc, OSError) or exc.errno not in _FAULTS:
        return None
    cls, cause, todo = _FAULTS[exc.errno]
    return cls(f"cannot write {what}: {cause}; {todo}, then try again", exc.errno)


@contextmanager
def writing(what: str) -> Iterator[None]:
    """Turn a storage fault inside the block into an engine error naming `what`."""
    try:
        yield
    except OSError as exc:
        fault = storage_fault(exc, what)
        if fault is None or fault is exc:
            raise
        raise fault from None
