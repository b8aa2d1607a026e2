"""The engine's one exception hierarchy. Front ends map `code` to tool errors and HTTP statuses."""

from __future__ import annotations

import errno as os_errno


class MnemovaultError(Exception):
    """Base of every error the engine raises on purpose."""

    code = "error"

    def tagged(self) -> str:
        """`<code>: <message>`, without repeating a code the message already starts with."""
        text = str(self)
        return text if text.startswith(f"{self.code}:") else f"{self.code}: {text}"


class SettingsError(MnemovaultError):
    code = "invalid_settings"


class InvalidInput(MnemovaultError):
    code = "invalid"


class PathOutsideVault(InvalidInput):
    code = "bad_path"


class Refused(InvalidInput):
    """The intake gate refused the content (empty, too short, a secret)."""

    code = "refused"


class NotFound(MnemovaultError):
    code = "not_found"


class Ambiguous(MnemovaultError):
    code = "ambiguous"


class IndexDamaged(MnemovaultError):
    """A table of the index (derived from the vault) is damaged. It is repaired from the
    vault when found; the message says whether the operation should be run again."""

    code = "index_damaged"


class WrongState(MnemovaultError):
    """The operation does not apply to the note in its current state."""

    code = "wrong_state"


class SupersessionCycle(WrongState):
    """A supersession that would make the chain loop back on itself (A -> B -> A)."""

    code = "supersession_cycle"


class WriteConflict(MnemovaultError):
    """The note changed under us and the change could not be re-applied."""

    code = "conflict"


class NoteProblem(MnemovaultError):
    """The note cannot be written safely (unreadable frontmatter, invalid values)."""

    code = "note_problem"


class StorageFault(MnemovaultError, OSError):
    """The file system refused a write. Also an OSError, so code that skips one unwritable
    note and goes on (a sweep) still does; the message names the note, never a temp file."""

    code = "storage_fault"

    def __init__(self, message: str, errno: int | None = None):
        super().__init__(message)
        self.errno = errno


class VaultReadOnly(StorageFault):
    code = "read_only"


class IndexReadOnly(StorageFault):
    """The shadow index's file cannot be written by this user: nothing in the vault is wrong."""

    code = "index_read_only"


class PermissionDenied(StorageFault):
    code = "permission_denied"


class DiskFull(StorageFault):
    code = "disk_full"


class UnsafePath(StorageFault):
    """A link (symbolic or hard) or a linked folder where the engine would write or read its
    own files: refused, so nothing outside the vault is written (safe_files.py)."""

    code = "unsafe_path"


def error_class(code: object) -> type[MnemovaultError]:
    """The engine class whose `code` this is (a client rebuilding an error a daemon answered
    with), MnemovaultError for any other: one table, the classes themselves."""
    todo: list[type[MnemovaultError]] = [MnemovaultError]
    while todo:
        cls = todo.pop()
        if cls.code == code:
            return cls
        todo += cls.__subclasses__()
    return MnemovaultError


# errno -> (error class, cause, what to do)
_FAULTS: dict[int, tuple[type[StorageFault], str, str]] = {
    os_errno.EROFS: (VaultReadOnly, "the vault's file system is read-only", "mount it writable"),
    os_errno.EACCES: (PermissionDenied, "permission denied", "check the file's and folder's permissions"),
    os_errno.EPERM: (
        PermissionDenied,
        "the operation is not permitted (an immutable or locked file?)",
        "check the file's permissions and attributes",
    ),
    os_errno.ENOSPC: (DiskFull, "the disk is full", "free some space"),
    os_errno.EDQUOT: (DiskFull, "the disk quota is exceeded", "free some space"),
}


def storage_fault(exc: BaseException, what: str) -> StorageFault | None:
    """The engine error for an OSError the file system raised while writing `what`; None when
    the error is not a storage fault (a missing file, a name taken: callers handle those).
    Here, beside the classes, so a front end maps an OSError that escaped the engine the same way."""
    if isinstance(exc, StorageFault):
        return exc
    if not isinstance(exc, OSError) or exc.errno not in _FAULTS:
        return None
    cls, cause, todo = _FAULTS[exc.errno]
    return cls(f"cannot write {what}: {cause}; {todo}, then try again", exc.errno)
