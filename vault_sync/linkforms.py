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
import os
from pathlib import Path

FORMS = ".mnemovault/link-forms.json"
MAX_FORMS = 5000  # the oldest are dropped first


class LinkForms:
    def __init__(self, root: Path):
        self.path = root / FORMS
        self.forms: dict[tuple[str, str], str] = {}
        self.dirty = False
        self.pending: list[tuple[str, str, str | None, str | None]] = []
        try:
            for source, written, was in json.loads(self.path.read_text(encoding="utf-8")):
                self.forms[(str(source), str(written))] = str(was)
        except (OSError, ValueError, TypeError):
            pass  # none yet, or unreadable: links keep the forms a rewrite chooses

    def original(self, source: str, written: str) -> str | None:
        """The form the link at `source` written `written` had before the engine rewrote it."""
        return self.forms.get((source, written))

    def rewrote(self, source: str, was: str, written: str, now_at: str | None = None) -> None:
        """A link at `source` written `was` is now written `written` (at `now_at` when the
        linking note itself moved); a form remembered for `was` is the one kept. Staged
        until `commit` (a rewrite retried after a person's edit stages again)."""
        self.pending.append((source, was, written, now_at or source))

    def restored(self, source: str, written: str) -> None:
        """The link is back in its original form: nothing left to remember for it."""
        self.pending.append((source, written, None, None))

    def commit(self) -> None:
        """Keep what the last rewrite of one note staged: it was written."""
        for source, was, written, now_at in self.pending:
            first = self.forms.pop((source, was), was)
            if written is not None and now_at is not None and first != written:
                self.forms[(now_at, written)] = first
        self.dirty |= bool(self.pending)
        self.pending = []

    def save(self) -> None:
        if not self.dirty:
            return
        items = [[s, w, o] for (s, w), o in self.forms.items()][-MAX_FORMS:]
        tmp = self.path.with_suffix(".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            pass  # best effort: the links themselves are already right
        self.dirty = False
