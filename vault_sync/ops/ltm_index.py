"""What a promotion adds besides the move, shared by promote and the crash recovery of a move:
the '## Related' section of the promoted note and its entry in the LTM index note."""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING

from ..dates import format_datetime
from ..errors import MnemovaultError

if TYPE_CHECKING:
    from ..service import MemoryService

STATUS_FOR_FOLDER = {"ltm": "promoted", "archive": "archived", "stm": "active"}
INDEX_NOTE = "LTM Index"


def with_related(text: str, names: list[str]) -> str:
    """The note's text with a '## Related' section listing [[names]] (merged if present)."""
    if not names:
        return text
    nl = "\r\n" if "\r\n" in text else "\n"
    m = re.search(r"^## Related[ \t]*\r?$", text, re.M)
    if m:
        section_end = re.search(r"^#{1,2} ", text[m.end():], re.M)
        end = m.end() + section_end.start() if section_end else len(text)
        section = text[m.end():end]
        have = {x.strip().lower() for x in re.findall(r"\[\[([^\]|#]+)", section)}
        new = [n for n in names if n.lower() not in have]
        if not new:
            return text
        addition = "".join(f"- [[{n}]]{nl}" for n in new)
        body = section.rstrip("\r\n") + nl + addition
        return text[:m.end()] + body + (nl if section_end else "") + text[end:]
    lead = "" if text.endswith(nl + nl) else (nl if text.endswith(nl) else nl + nl)
    return text + lead + f"## Related{nl}{nl}" + "".join(f"- [[{n}]]{nl}" for n in names)



def add_to_index_note(svc: "MemoryService", name: str, now: datetime) -> None:
    rel = f"{svc.layout.ltm}/{INDEX_NOTE}.md"
    path = svc.layout.abs(rel)
    line = f"- [[{name}]] (promoted {format_datetime(now)[:10]})"
    if not path.exists():
        text = f"# {INDEX_NOTE}\n\nLong-term memories, newest last.\n\n{line}\n"
        try:
            svc.writes.create(rel, text.encode("utf-8"))
            return
        except FileExistsError:
            pass

    def transform(current: bytes) -> bytes | None:
        text = current.decode("utf-8", errors="strict")
        if f"[[{name}]]" in text:
            return None
        nl = "\r\n" if "\r\n" in text else "\n"
        return (text + ("" if text.endswith(nl) or not text else nl) + line + nl).encode("utf-8")

    try:
        svc.writes.update(rel, transform)
    except (UnicodeDecodeError, OSError, MnemovaultError):
        return  # the index note is a convenience: never fail a promotion over it
