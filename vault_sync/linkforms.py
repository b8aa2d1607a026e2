"""The forms links had before a move rewrote them, so that moving the note back (an undo,
a restore) writes each link back as the person wrote it.

A rewrite chooses the shortest form that keeps a link on its note, which is not always the
form written: `[[設定]]` becomes `[[Archive/設定]]` when another `設定.md` would capture the
bare name. Moving the note back cannot tell that `[[Archive/設定]]` was once `[[設定]]`
from the text alone, so each rewrite is remembered here: (the linking note, the target as the
engine wrote it) -> the target as it was. A later rewrite of that same link writes the
remembered form back when it still means the note from where the link sits; otherwise the
usual shortest form is written, and the original is carried on to the next rewrite.

The record is the engine's own bookkeeping in the vault's hidden folder, bounded in size;
losing it loses nothing but the original spelling of links moved twice.
"""

from __future__ import annotations

import json
from pathlib import Path

from .safe_files import read_file, replace_file

FORMS = ".mnemovault/link-forms.json"
MAX_FORMS = 5000  # the oldest are dropped first


class LinkForms:
    """(linking note, target as the engine wrote it) -> {which of the links so written in that
    note, counted in text order: the form it replaced}. Two links both rewritten to
    `[[Archive/x]]` may have been `[[x]]` and `[[STM/x]]`. Targets carry their kind: "[[x"
    for a wikilink, "](x" for a Markdown link; the forms kept are as written."""

    def __init__(self, root: Path):
        self.root = root
        self.path = root / FORMS
        self.forms: dict[tuple[str, str], dict[int, str]] = {}
        self.dirty = False
        self.pending: list[tuple[str, int, str, str, str]] = []
        try:
            for source, written, was in json.loads(read_file(root, FORMS).decode("utf-8")):
                self.forms[(str(source), str(written))] = {int(i): str(w) for i, w in dict(was).items()}
        except (OSError, ValueError, TypeError):
            pass  # none yet, or unreadable: links keep the forms a rewrite chooses

    def original(self, source: str, written: str, nth: int) -> str | None:
        """The form the `nth` link at `source` written `written` had before the engine rewrote it."""
        return self.forms.get((source, written), {}).get(nth)

    def saw(self, written: str, nth: int, now: str, fate: str = "kept", raw: str = "") -> None:
        """One link of the note being rewritten, in text order: the `nth` written `written`,
        now written `now`; its fate "kept", "restored" (back to its original form) or
        "rewrote" (from `raw`). Staged until `commit`; a rewrite retried after a person's
        edit stages again."""
        self.pending.append((written, nth, now, fate, raw))

    def commit(self, was: str, now_at: str) -> None:
        """The note that was at `was` (now at `now_at`) was written as staged: every form
        remembered for it follows its link to its new spelling and place in the text."""
        old = {k[1]: v for k, v in self.forms.items() if k[0] == was}
        for key in [k for k in self.forms if k[0] == was]:
            del self.forms[key]
        counts: dict[str, int] = {}
        for written, nth, now, fate, raw in self.pending:
            at = counts.get(now, 0)
            counts[now] = at + 1
            first = old.get(written, {}).get(nth)
            keep = (raw if first is None else first) if fate == "rewrote" else first if fate == "kept" else None
            if keep is not None:
                self.forms.setdefault((now_at, now), {})[at] = keep
        self.dirty = True
        self.pending = []

    def save(self) -> None:
        if not self.dirty:
            return
        items = [[s, w, o] for (s, w), o in self.forms.items()][-MAX_FORMS:]
        try:
            replace_file(self.root, FORMS, json.dumps(items, ensure_ascii=False).encode("utf-8"))
        except OSError:
            pass  # best effort (a link planted there is refused, never followed): the links are already right
        self.dirty = False
