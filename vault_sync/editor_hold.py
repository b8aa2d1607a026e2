"""The note open in the person's editor, as the Obsidian plugin reports it.

Background and bulk writes leave that note alone, so it never reloads under the cursor: the
sweep's score write-back, the scheduled lifecycle, GC and promote-all on any front end
(archiving for supersession included), and the daemon's jobs (a consolidation job leaves the
note out). What is asked for on that one note (touch, archive, promote, supersede, restore,
consolidate by id) happens at once. The plugin
reports the note on every change of the active file and, while the person types in it, again
at most every 20 s. A note is held from a report until a report names another path or none,
or until `hold_seconds` pass without a report (the editor was left idle, or the plugin went
away without saying so). Deferred writes happen on the first lifecycle pass after that: the
note is still due then, nothing is queued here.

Only a path is kept, never opened: a note that does not exist (just created, not yet indexed)
is held like any other and simply matches nothing.
"""

from __future__ import annotations

import threading
import unicodedata
from datetime import datetime
from typing import Any, Callable

from .errors import InvalidInput
from .limits import MAX_REF_CHARS, bad_char
from .vault import outside_reason

HOLD_SECONDS = 60.0  # the plugin's heartbeat is at most every 20 s: three missed beats end a hold


def check_path(value: Any) -> str:
    """A vault-relative Markdown path as Obsidian writes it (`STM/x.md`), or InvalidInput.
    Messages never quote the input."""
    if not isinstance(value, str):
        raise InvalidInput("`path` must be a string or null")
    if not value or len(value) > MAX_REF_CHARS:
        raise InvalidInput(f"`path` must be 1-{MAX_REF_CHARS} characters (got {len(value)})")
    why = bad_char(value)
    if why:
        raise InvalidInput(f"`path` contains {why}")
    # stricter than Layout.safe_rel, which tidies a tool's path: this one is compared as given
    # with the index's paths, so a backslash, an empty or a '.' part is refused, not repaired
    why = outside_reason(value)
    if "\\" in value or why == "absolute":
        raise InvalidInput("`path` must be relative to the vault, with / between folders (e.g. STM/x.md)")
    if why == "parent" or any(part in ("", ".") for part in value.split("/")):
        raise InvalidInput("`path` must not contain empty, '.' or '..' parts")
    if not value.lower().endswith(".md") or value.rsplit("/", 1)[-1].lower() == ".md":
        raise InvalidInput("`path` must name a Markdown note (ending in .md)")
    return value


def _key(path: str) -> str:
    # macOS may hand the plugin a decomposed name where the index has the composed one
    return unicodedata.normalize("NFC", path)


class EditorHold:
    """Which note is held, on the given clock. Reports come from request threads, questions
    from the lifecycle thread: one small lock."""

    def __init__(self, clock: Callable[[], datetime], hold_seconds: float = HOLD_SECONDS):
        self._clock = clock
        self.hold_seconds = hold_seconds
        self._path: str | None = None
        self._since: datetime | None = None
        self._lock = threading.Lock()

    def report(self, path: str | None) -> str | None:
        """The plugin's report: `path` open now (a heartbeat when it is the same), or None."""
        held = None if path is None else _key(check_path(path))
        with self._lock:
            self._path, self._since = held, self._clock()
        return held

    def held(self) -> str | None:
        """The held note's path, or None (nothing open, or idle for hold_seconds)."""
        with self._lock:
            path, since = self._path, self._since
        if path is None or since is None:
            return None
        if (self._clock() - since).total_seconds() >= self.hold_seconds:
            return None
        return path

    def holds(self, rel: str) -> bool:
        held = self.held()
        return held is not None and _key(rel) == held


def held_matcher(held: str | None) -> Callable[[str], bool]:
    """A test for many paths against one reading of the hold (a sweep reads it once)."""
    if held is None:
        return lambda rel: False
    return lambda rel: rel == held or _key(rel) == held
