"""What a conflict copy changes in the person's text: a bounded unified diff, note against copy.

The person's text of a memory is its body and the frontmatter keys that are not mnemovault's
(OWNED_KEYS): the owned keys merge by themselves, so they are left out of what the person is
shown. A copy of one of the person's own notes is compared whole."""

from __future__ import annotations

import difflib
from typing import Any

from ..note import parse_note
from ..text_hashes import person_text

MAX_DIFF_LINES = 80  # a conflict list stays readable; the rest is named, never silently cut
MAX_LINE_CHARS = 300


def conflict_diff(original: str, copy: str, orig_data: bytes, copy_data: bytes, whole: bool) -> dict[str, Any]:
    """{"differs": what differs, "diff": unified diff lines, "diff_cut": lines left off}.

    `differs` is "nothing" (the same bytes), "owned keys" (only mnemovault's keys: merged by
    the lease holder) or "text" (the person's part: left for the person)."""
    if orig_data == copy_data:
        return {"differs": "nothing", "diff": [], "diff_cut": 0}
    if whole:
        a = orig_data.decode("utf-8", errors="replace").replace("\r\n", "\n")
        b = copy_data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    else:
        a = person_text(parse_note(original, orig_data))
        b = person_text(parse_note(copy, copy_data))
    if a == b:
        return {"differs": "owned keys", "diff": [], "diff_cut": 0}
    lines = [
        line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "…"
        for line in difflib.unified_diff(
            a.splitlines(), b.splitlines(), fromfile=original, tofile=copy, lineterm="", n=2
        )
    ]
    return {"differs": "text", "diff": lines[:MAX_DIFF_LINES], "diff_cut": max(0, len(lines) - MAX_DIFF_LINES)}
