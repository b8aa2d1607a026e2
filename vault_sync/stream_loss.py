"""Signs that the file-event stream lost events, so the watcher must reconcile with the vault.

- The kernel's event queue overflowed (inotify drops every event after the limit). watchdog
  rebuilds its watches but tells no handler; it only logs a warning, so we listen there.
- The observer thread died (it is restarted; whatever happened meanwhile was not seen).
- The machine slept: the monotonic clock stops during suspend, the wall clock does not, so a
  gap between the two means time passed that nobody watched (or the clock was set: harmless).
"""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Callable, Protocol


class Listener(Protocol):
    def lost_events(self, reason: str, detail: str) -> None: ...


class _OverflowHeard(logging.Handler):
    """Hears watchdog's 'queue overflowed' warning and tells every live watcher in this process
    (the warning does not say which observer; a needless reconcile only costs a vault scan)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.listeners: weakref.WeakSet[Listener] = weakref.WeakSet()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:
            return
        if "overflow" not in text.lower():
            return
        for listener in list(self.listeners):
            listener.lost_events("overflow", f"the file-event queue overflowed: {text}")


_heard: _OverflowHeard | None = None
_heard_lock = threading.Lock()


def listen_for_overflow(listener: Listener) -> None:
    global _heard
    with _heard_lock:
        if _heard is None:
            _heard = _OverflowHeard()
            source = logging.getLogger("watchdog")
            source.addHandler(_heard)
            if not source.isEnabledFor(logging.WARNING):  # a quiet log setup must not hide it from us
                source.setLevel(logging.WARNING)
        _heard.listeners.add(listener)


def stop_listening(listener: Listener) -> None:
    with _heard_lock:
        if _heard is not None:
            _heard.listeners.discard(listener)


class ClockGap:
    """Compares how far the wall clock and the monotonic clock moved since the last check."""

    def __init__(self, wall: Callable[[], float], mono: Callable[[], float], threshold: float = 30.0):
        self.wall, self.mono, self.threshold = wall, mono, threshold
        self._base = (wall(), mono())

    def check(self) -> float | None:
        """The unwatched seconds (wall minus monotonic advance) when beyond the threshold."""
        wall, mono = self.wall(), self.mono()
        gap = (wall - self._base[0]) - (mono - self._base[1])
        self._base = (wall, mono)
        return gap if abs(gap) > self.threshold else None
