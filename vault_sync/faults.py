"""OS write failures as engine errors: which note, and why, in words a person can act on
(the mapping itself is errors.storage_fault)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from .errors import storage_fault


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
