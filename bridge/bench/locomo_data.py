"""The LoCoMo bench's data: conversations and questions as read from the data set's JSON, and
the shapes of the result (the JSON of `bench --locomo --json`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import NotRequired, TypedDict

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
K = 5
MRR_DEPTH = 10

# -- the shapes of the result (the JSON of `bench --locomo --json`) ------------------------

# the figures of one category: "hit@5" is no identifier, hence the functional form
Figures = TypedDict("Figures", {"n": int, "hit@5": float | None, "recall@5": float | None, "mrr": float | None})


class VectorReport(TypedDict):
    from_cache: int
    encoded: int
    encode_s: float
    error: str | None


class ConversationInfo(TypedDict):
    turns: int
    questions: int
    save_s: float
    vectors: NotRequired[VectorReport]  # with the model only


class BatchSave(TypedDict):
    turns: int
    saved: int
    vectors: int
    save_s: float
    encode_s: float


class LocomoResult(TypedDict):
    folder: str
    conversations: dict[str, ConversationInfo]
    rankers: dict[str, dict[str, Figures]]  # ranker -> category (and "overall") -> figures
    hybrid_p50_ms: float | None
    query_vectors_cached: bool
    batch_save: BatchSave | None
    seconds: float


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    said_at: datetime | None
    session: int
    caption: str = ""

    def memory_text(self) -> str:
        when = f" on {self.said_at.day} {self.said_at:%B %Y}" if self.said_at else ""
        text = f"{self.speaker}{when}: {self.text.strip()}"
        if self.caption:
            text += f" [shares an image: {self.caption.strip()}]"
        return text


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]


@dataclass
class Conversation:
    name: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def parse_when(value: str) -> datetime | None:
    """LoCoMo's session stamp, e.g. '1:56 pm on 8 May, 2023'."""
    try:
        return datetime.strptime(" ".join(value.split()), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)
    except (ValueError, AttributeError):
        return None


def load_conversation(path: Path) -> Conversation:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    conv = data.get("conversation", data)
    out = Conversation(Path(path).stem)
    sessions = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
    for n in sessions:
        when = parse_when(conv.get(f"session_{n}_date_time", ""))
        for t in conv[f"session_{n}"]:
            out.turns.append(Turn(t["dia_id"], t["speaker"], t.get("text", ""), when, n, t.get("blip_caption") or ""))
    known = {t.dia_id for t in out.turns}
    for qa in data.get("qa", []):
        cat = int(qa.get("category", 0))
        if cat not in CATEGORIES:
            continue  # category 5 (adversarial) has no answer to retrieve
        # a few evidence entries hold two ids in one string ("D8:6; D9:17")
        ids = [e for raw in qa.get("evidence", []) for e in re.findall(r"D\d+:\d+", str(raw))]
        ids = list(dict.fromkeys(e for e in ids if e in known))
        if ids:
            out.questions.append(Question(str(qa["question"]), cat, ids))
    return out
