"""ChatGPT's data export (`conversations.json`), read for the `chat` format (chat.py).

A conversation is a tree: `mapping` holds its nodes ({id, parent, children, message}), and a
regenerated answer or an edited question starts a side branch. `current_node` is the last
node of the branch the person kept, so the turns are the path from it back to the root.
Only what was said between the person and the assistant is kept: system and tool messages,
hidden context (custom instructions), tool calls (the assistant's memory included), reasoning
and non-text content are passed over; in a voice conversation the words said are kept (the
`audio_transcription` parts), not the audio."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..limits import quote

KEPT_ROLES = ("user", "assistant")
TEXT_TYPES = ("text", "multimodal_text")  # multimodal: text and transcriptions between image and audio pointers


@dataclass
class Turn:
    position: int  # its place among the messages on the kept branch (1 = first)
    message_id: Any
    role: str
    text: str
    created: Any  # unix seconds, or None when the export has no time for it


def is_chatgpt(obj: Any) -> bool:
    return isinstance(obj, dict) and "mapping" in obj


def conversation_id(conv: dict[str, Any]) -> Any:
    return conv.get("id") if conv.get("id") is not None else conv.get("conversation_id")


def kept_branch(conv: dict[str, Any]) -> list[dict[str, Any]]:
    """The nodes from the root to `current_node`, in the order they were said; raises
    ValueError when the tree is broken (a missing node, a loop)."""
    mapping, current = conv.get("mapping"), conv.get("current_node")
    if not isinstance(mapping, dict):
        raise ValueError("`mapping` is not an object")
    if current is None and not mapping:
        return []  # a conversation with nothing in it
    if not isinstance(current, str) or current not in mapping:
        raise ValueError(f"`current_node` {quote(current)} is not a node of `mapping`")
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id: Any = current
    while node_id is not None:
        if not isinstance(node_id, str) or node_id not in mapping:
            raise ValueError(f"a node's parent {quote(node_id)} is not in `mapping`")
        if node_id in seen:
            raise ValueError(f"its nodes form a loop at {quote(node_id)}")
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            raise ValueError(f"node {quote(node_id)} is not an object")
        path.append(node)
        node_id = node.get("parent")
    path.reverse()
    return path


def _text(message: dict[str, Any]) -> str | None:
    """The message's text, or None when it is not something said in the chat."""
    author, content = message.get("author"), message.get("content")
    if not isinstance(author, dict) or not isinstance(author.get("role"), str):
        raise ValueError("no `author.role`")
    if not isinstance(content, dict):
        raise ValueError("no `content` object")
    meta = message.get("metadata")
    if author["role"] not in KEPT_ROLES or message.get("recipient") not in (None, "all"):
        return None  # system, tool, or a call the assistant made to a tool
    if isinstance(meta, dict) and meta.get("is_visually_hidden_from_conversation"):
        return None
    if content.get("content_type") not in TEXT_TYPES:
        return None  # code run, browsing results, reasoning, custom instructions
    parts = content.get("parts")
    if not isinstance(parts, list):
        raise ValueError("`content.parts` is not a list")
    return "\n".join(t for t in map(_part_text, parts) if t).strip()


def _part_text(part: Any) -> str | None:
    """A part's words: text, or what was said in a voice conversation (`audio_transcription`);
    images, audio and other pointers say nothing."""
    if isinstance(part, str):
        return part
    said = part.get("text") if isinstance(part, dict) and part.get("content_type") == "audio_transcription" else None
    return said if isinstance(said, str) else None


def turns(conv: dict[str, Any]) -> tuple[list[Turn], list[str]]:
    """The kept branch's turns, and a problem ("message N: cause") for each broken message.
    Raises ValueError when the conversation's tree cannot be followed at all."""
    out: list[Turn] = []
    problems: list[str] = []
    position = 0
    for node in kept_branch(conv):
        message = node.get("message")
        if message is None:
            continue  # the root
        position += 1
        if not isinstance(message, dict):
            problems.append(f"message {position}: not an object")
            continue
        try:
            text = _text(message)
        except ValueError as exc:
            problems.append(f"message {position}: {exc}")
            continue
        if text:
            out.append(
                Turn(
                    position,
                    message.get("id", node.get("id")),
                    message["author"]["role"],
                    text,
                    message.get("create_time"),
                )
            )
    return out, problems
