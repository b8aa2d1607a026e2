"""Chat histories (format `chat`): each message becomes one memory "<Speaker>: <text>" that
carries the conversation's id and the time it was said (`conversation`, `said_at`, the keys
save_many writes), so search scores a turn with the turns said around it.

PATH is a file or a folder of .json / .jsonl files; each file's shape is told by its content:
- JSON lines, one message per line: {"conversation", "speaker" | "role", "text" | "content",
  "said_at" | "timestamp" (ISO or unix seconds), "id" (optional)};
- JSON: a conversation {"id" | "conversation", "title", "messages": [messages as above]}, or
  a list of them;
- ChatGPT's data export, conversations.json (chatgpt.py: the branch the person kept).
A message's source id is "<conversation>:<its id, or its position in the conversation>", so
importing the same history again adds nothing. A bad line or message anywhere is reported
with where it is, and nothing is imported (BadSource)."""

from __future__ import annotations

import json
from datetime import timezone
from pathlib import Path
from typing import Any

from ..errors import MnemovaultError
from ..limits import bad_char, quote
from ..ops.save_batch import conversation_fields
from .chatgpt import conversation_id as chatgpt_id
from .chatgpt import is_chatgpt
from .chatgpt import turns as chatgpt_turns
from .core import BadSource, Item
from .readers import json_lines, loads, read_text, source_files, when

SOURCE = "chat"
MAX_SPEAKER_CHARS = 100
# the other JSON files of an unzipped ChatGPT export: not chats, passed over in a folder
EXPORT_COMPANIONS = frozenset(
    {"user.json", "message_feedback.json", "model_comparisons.json", "shared_conversations.json"}
)
SHAPES = (
    "expected JSON lines of messages, a conversation object with `messages` (or a list of them), "
    "or ChatGPT's conversations.json"
)


def _one(obj: dict[str, Any], *keys: str) -> Any:
    """The first of `keys` the object has a value for (a field may go by two names)."""
    return next((obj[k] for k in keys if obj.get(k) is not None), None)


def _id(value: Any, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        raise ValueError(f"no usable {what} (text or a number)")
    return str(value).strip()


class Chats:
    """The items read so far, every problem, and each conversation's message count."""

    def __init__(self) -> None:
        self.items: list[Item] = []
        self.problems: list[str] = []
        self.count: dict[str, int] = {}  # conversation -> messages read (the next one's position)
        self.where: dict[str, tuple[str, str]] = {}  # source id -> (where, text): repeats

    def conversation(self, value: Any) -> str:
        cid = _id(value, "conversation id")
        try:
            conversation_fields(cid)  # the bounds save_many puts on it
        except MnemovaultError as exc:
            raise ValueError(str(exc)) from None
        return cid

    def add(
        self, where: str, cid: str, speaker: Any, text: Any, said_at: Any, mid: Any = None, role: bool = False
    ) -> None:
        """One message (a problem instead when it is malformed; nothing when it says nothing)."""
        position = self.count[cid] = self.count.get(cid, 0) + 1
        try:
            self._add(where, cid, speaker, text, said_at, mid, role, position)
        except ValueError as exc:
            self.problems.append(f"{where}: {exc}")

    def _add(
        self, where: str, cid: str, speaker: Any, text: Any, said_at: Any, mid: Any, role: bool, position: int
    ) -> None:
        if not isinstance(speaker, str) or not speaker.strip():
            raise ValueError("no `speaker` (or `role`) name")
        speaker = speaker.strip().capitalize() if role else speaker.strip()
        why = bad_char(speaker)
        if len(speaker) > MAX_SPEAKER_CHARS or why:
            raise ValueError(
                f"speaker {quote(speaker)} is not a one-line name of at most {MAX_SPEAKER_CHARS} characters"
            )
        if not isinstance(text, str):
            raise ValueError("no `text` (or `content`) text")
        said = when(said_at, "said_at")
        try:
            said = said.astimezone(timezone.utc) if said is not None else None
        except (OverflowError, ValueError):  # at the calendar's edge (year 1 with an offset)
            raise ValueError(f"said_at {quote(said_at)} is out of range") from None
        source_id = f"{cid}:{_id(mid, 'message id') if mid is not None else position}"
        if not text.strip():
            return  # an empty message (an attachment alone): nothing said to remember
        body = f"{speaker}: {text.strip()}"
        if source_id in self.where:
            first, first_body = self.where[source_id]
            if first_body != body:  # the same message twice (two copies of a file) is read once
                raise ValueError(f"message id {quote(source_id)} is also {first}, with another text")
            return
        self.where[source_id] = (where, body)
        extra: dict[str, Any] = {"conversation": cid}
        if said is not None:
            extra["said_at"] = said
        self.items.append(Item(where=where, source_id=source_id, text=body, created=said, last_used=said, extra=extra))

    # -- the shapes --
    def message_line(self, where: str, obj: dict[str, Any]) -> None:
        try:
            cid = self.conversation(obj.get("conversation"))
        except ValueError as exc:
            self.problems.append(f"{where}: {exc}")
            return
        self._message(where, cid, obj)

    def _message(self, where: str, cid: str, obj: dict[str, Any]) -> None:
        self.add(
            where,
            cid,
            _one(obj, "speaker", "role"),
            _one(obj, "text", "content"),
            _one(obj, "said_at", "timestamp"),
            obj.get("id"),
            role=obj.get("speaker") is None,
        )

    def conversation_object(self, where: str, conv: dict[str, Any]) -> None:
        messages = conv.get("messages")
        try:
            cid = self.conversation(_one(conv, "id", "conversation"))
            if not isinstance(messages, list):
                raise ValueError("`messages` is not a list")
        except ValueError as exc:
            self.problems.append(f"{where}: {exc}")
            return
        for n, obj in enumerate(messages, 1):
            at = f"{where} ({quote(cid)}) message {n}"
            if isinstance(obj, dict):
                self._message(at, cid, obj)
            else:
                self.problems.append(f"{at}: not an object")

    def chatgpt_conversation(self, where: str, conv: dict[str, Any]) -> None:
        try:
            cid = self.conversation(chatgpt_id(conv))
            turns, problems = chatgpt_turns(conv)
        except ValueError as exc:
            self.problems.append(f"{where}: {exc}")
            return
        at = f"{where} ({quote(cid)})"
        self.problems += [f"{at} {p}" for p in problems]
        for t in turns:
            self.count[cid] = t.position - 1  # positions count every message on the branch
            said = t.created if t.created is not None else conv.get("create_time")
            self.add(f"{at} message {t.position}", cid, t.role, t.text, said, t.message_id, role=True)

    def value(self, where: str, data: Any) -> None:
        """A whole JSON value: a conversation (ours or ChatGPT's) or a list of them."""
        for n, conv in enumerate(data if isinstance(data, list) else [data], 1):
            at = f"{where} conversation {n}" if isinstance(data, list) else f"{where} conversation"
            if is_chatgpt(conv):
                self.chatgpt_conversation(at, conv)
            elif isinstance(conv, dict) and "messages" in conv:
                self.conversation_object(at, conv)
            else:
                self.problems.append(f"{at}: not a conversation (no `messages`, nor ChatGPT's `mapping`)")

    def lines(self, path: Path, name: str) -> None:
        for n, obj in json_lines(path):
            where = f"{name} line {n}"
            if isinstance(obj, str):
                self.problems.append(f"{where}: {obj}")
            elif is_chatgpt(obj) or "messages" in obj:  # one conversation per line
                self.value(where, obj)
            else:
                self.message_line(where, obj)

    def file(self, path: Path, name: str) -> None:
        """Read one file, its shape told by its content."""
        text = read_text(path, name, self.problems)
        if text is None:
            return
        start = text.lstrip()[:1]
        if start not in ("[", "{"):
            self.problems.append(f"{name}: {'empty' if not start else 'not a chat history'}; {SHAPES}")
            return
        try:
            data = loads(text)
        except json.JSONDecodeError as exc:
            first = text.lstrip().split("\n", 1)[0]
            if start == "{" and (exc.msg == "Extra data" or _is_object(first)):
                self.lines(path, name)  # one JSON value per line
            else:
                self.problems.append(f"{name} line {exc.lineno}: not JSON ({exc.msg})")
            return
        except ValueError as exc:
            self.problems.append(f"{name}: not JSON ({exc})")
            return
        if isinstance(data, dict) and not is_chatgpt(data) and "messages" not in data:
            self.message_line(f"{name} line 1", data)  # JSON lines of a single message
        else:
            self.value(name, data)


def _is_object(line: str) -> bool:
    try:
        return isinstance(loads(line), dict)
    except ValueError:  # JSONDecodeError is one
        return False


def parse(path: Path) -> list[Item]:
    chats = Chats()
    if path.is_dir():
        files = sorted({*source_files(path, "*.json", chats.problems), *source_files(path, "*.jsonl", chats.problems)})
        files = [f for f in files if f.name not in EXPORT_COMPANIONS]
        if not files and not chats.problems:
            chats.problems.append(f"{path}: no .json or .jsonl files")
        for f in files:
            chats.file(f, f.relative_to(path).as_posix())
    elif path.is_file():
        chats.file(path, path.name)
    else:
        raise BadSource([f"{path}: no such file or folder"])
    if chats.problems:
        raise BadSource(chats.problems)
    return chats.items
