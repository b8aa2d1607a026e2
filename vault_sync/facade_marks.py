"""What each public method of the facade (service.py) is, said once, on the method.

- `reads`: an operation that reads; damage to the index met on the way is repaired from the
  vault and the read runs again.
- `writes`: an operation that writes the vault; it runs under the write lock for its whole
  length, and damage met on the way is repaired and reported (the vault may already hold the
  change, so it is not repeated).
- `background`: writes only what is derived from the vault (vectors), a batch at a time under
  its own locking, so a long run never holds up a save.
- `internal`: plumbing for the front ends and tests, not an operation.

tests/engine/test_facade_marks.py fails when a public method carries no mark.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

READ, WRITE, BACKGROUND, INTERNAL = "read", "write", "background", "internal"
MARK = "__facade__"  # the attribute the mark is kept in


def _marked(method: Any, kind: str) -> Any:
    setattr(method, MARK, kind)
    return method


def _healed(method: F, retry: bool) -> Callable[..., Any]:
    @functools.wraps(method)
    def run(svc: Any, *args: Any, **kwargs: Any) -> Any:  # svc: the facade (service.py)
        return svc._heal(method.__name__, retry, lambda: method(svc, *args, **kwargs))

    return run


def reads(method: F) -> F:
    return _marked(_healed(method, retry=True), READ)  # type: ignore[no-any-return]


def writes(method: F) -> F:
    @functools.wraps(method)
    def locked(svc: Any, *args: Any, **kwargs: Any) -> Any:
        with svc.engine.writes.operation():
            return method(svc, *args, **kwargs)

    return _marked(_healed(locked, retry=False), WRITE)  # type: ignore[no-any-return]


def background(method: F) -> F:
    return _marked(method, BACKGROUND)  # type: ignore[no-any-return]


def internal(method: F) -> F:
    return _marked(method, INTERNAL)  # type: ignore[no-any-return]


def mark_of(method: Any) -> str | None:
    """The mark of a facade attribute (a property's is on its getter)."""
    if isinstance(method, property):
        method = method.fget
    return getattr(method, MARK, None)
