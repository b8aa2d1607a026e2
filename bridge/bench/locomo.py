"""`mnemovault bench --locomo DIR`: recall on long real conversations (LoCoMo).

Each conversation gets a fresh temporary vault; every turn is saved through the engine as a
memory ("Caroline on 8 May 2023: <text>", plus the caption of a shared image), then every
question of categories 1-4 is searched. Printed per category: hit@5 (an evidence turn in the
top 5), evidence recall@5 (the share of a question's evidence turns in the top 5) and MRR@10,
for the engine's hybrid search and, from the same index in the same run, baselines: the
engine's full-text ranking, raw FTS5 BM25 and MiniLM cosine alone.

The data (CC BY-NC) is read from the folder given, never copied. Turn vectors are cached by
content hash in a folder outside the project (default ~/.cache/mnemovault/locomo), so a rerun
for a ranking experiment skips the model's encoding of every turn.
"""

from __future__ import annotations

import re
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from vault_sync.index import queries

from .locomo_data import (
    CATEGORIES,
    MRR_DEPTH,
    BatchSave,
    Conversation,
    ConversationInfo,
    Figures,
    K,
    LocomoResult,
    load_conversation,
)
from .locomo_rank import Model, QueryVectors, bm25_ranker, cache_file_of, embed_with_cache, engine_ranker, minilm_ranker

if TYPE_CHECKING:
    from vault_sync.search.embeddings import Embedder
    from vault_sync.service import MemoryService

NOW = datetime(2026, 11, 20, 12, 0, 0, tzinfo=timezone.utc)  # the bench's fixed clock
DEFAULT_CACHE = Path.home() / ".cache" / "mnemovault" / "locomo"


# -- saving ------------------------------------------------------------------------------

TURN_GAP = timedelta(minutes=1)  # LoCoMo stamps sessions, not turns: each turn a minute after the last


def turn_times(conv: Conversation) -> list[datetime | None]:
    """When each turn was said: its session's stamp plus a minute per earlier turn of the session."""
    out: list[datetime | None] = []
    position: dict[int, int] = {}
    for turn in conv.turns:
        i = position[turn.session] = position.get(turn.session, -1) + 1
        out.append(turn.said_at + i * TURN_GAP if turn.said_at else None)
    return out


def save_turns(svc: MemoryService, conv: Conversation) -> dict[str, str]:
    """Save every turn through the engine in one batch, as said in conversation `conv.name` at
    its time; returns note path -> dia_id."""
    items: list[Any] = []
    for turn, when in zip(conv.turns, turn_times(conv)):
        item = {"text": turn.memory_text(), "conversation": conv.name}
        if when is not None:
            item["said_at"] = when.isoformat()
        items.append(item)
    by_path: dict[str, str] = {}
    for turn, answer in zip(conv.turns, svc.save_many(items)["results"]):
        path = answer["note"]["path"] if answer.get("saved") else answer.get("duplicate_of")
        if path:
            by_path.setdefault(path, turn.dia_id)
    return by_path


# -- scoring -----------------------------------------------------------------------------


def score_question(found: list[str], evidence: list[str]) -> tuple[float, float, float]:
    """(hit@K, evidence recall@K, reciprocal rank within MRR_DEPTH) for dia_ids, best first."""
    top = found[:K]
    wanted = set(evidence)
    hit = 1.0 if wanted & set(top) else 0.0
    recall = len(wanted & set(top)) / len(wanted)
    rr = next((1.0 / (i + 1) for i, d in enumerate(found[:MRR_DEPTH]) if d in wanted), 0.0)
    return hit, recall, rr


@dataclass
class Sums:
    """Sums of hit, recall and reciprocal rank over n questions."""

    hit: float = 0.0
    recall: float = 0.0
    rr: float = 0.0
    n: int = 0

    def add(self, figures: tuple[float, float, float]) -> None:
        self.hit += figures[0]
        self.recall += figures[1]
        self.rr += figures[2]
        self.n += 1

    def figures(self) -> Figures:
        if not self.n:
            return {"n": 0, "hit@5": None, "recall@5": None, "mrr": None}
        return {"n": self.n, "hit@5": self.hit / self.n, "recall@5": self.recall / self.n, "mrr": self.rr / self.n}


class Tally:
    """Sums of hit, recall and reciprocal rank per category."""

    def __init__(self) -> None:
        self.sums: dict[int, Sums] = {c: Sums() for c in CATEGORIES}

    def add(self, category: int, figures: tuple[float, float, float]) -> None:
        self.sums[category].add(figures)

    def table(self) -> dict[str, Figures]:
        out: dict[str, Figures] = {}
        total = Sums()
        for c, s in self.sums.items():
            out[CATEGORIES[c]] = s.figures()
            total.hit += s.hit
            total.recall += s.recall
            total.rr += s.rr
            total.n += s.n
        out["overall"] = total.figures()
        return out


# -- the run -----------------------------------------------------------------------------


def _service(vault: Path, index: Path, embeddings: bool) -> MemoryService:
    from vault_sync.service import MemoryService
    from vault_sync.settings import load_settings

    settings = load_settings(vault=vault, index_path=index, quiet_seconds=0, embeddings=embeddings)
    return MemoryService(settings, clock=lambda: NOW)


def run_conversation(
    conv: Conversation,
    work: Path,
    embedder: Model | None,
    cache_dir: Path | None,
    tallies: dict[str, Tally],
    latencies: list[float],
) -> ConversationInfo:
    vault, index = work / conv.name / "vault", work / conv.name / "index.sqlite3"
    (vault / "STM").mkdir(parents=True)
    saver = _service(vault, index, embeddings=False)
    t = time.perf_counter()
    dia_of = save_turns(saver, conv)
    save_s = time.perf_counter() - t
    saver.close()
    info: ConversationInfo = {"turns": len(conv.turns), "questions": len(conv.questions), "save_s": save_s}
    rankers: dict[str, Callable[[str], list[str]]] = {}
    text_svc = _service(vault, index, embeddings=False)
    rankers["full text (engine)"] = engine_ranker(text_svc)
    rankers["BM25"] = bm25_ranker(text_svc)
    svc = None
    if embedder is not None:
        svc = _service(vault, index, embeddings=True)
        svc.use_embedder(embedder)
        cache_file = cache_file_of(cache_dir, conv, embedder.name) if cache_dir is not None else None
        info["vectors"] = embed_with_cache(svc, embedder, cache_file)
        hybrid = engine_ranker(svc)

        def timed_hybrid(q: str, _rank: Callable[[str], list[str]] = hybrid) -> list[str]:
            t0 = time.perf_counter()
            out = _rank(q)
            latencies.append(time.perf_counter() - t0)
            return out

        rankers = {"hybrid (engine)": timed_hybrid, **rankers, "MiniLM": minilm_ranker(svc, embedder)}
    for q in conv.questions:
        for name, rank in rankers.items():
            found = [dia_of.get(p) for p in rank(q.text)]
            tallies.setdefault(name, Tally()).add(q.category, score_question([d for d in found if d], q.evidence))
    text_svc.close()
    if svc is not None:
        svc.close()
    return info


def time_batch_save(conv: Conversation, embedder: Embedder, work: Path, turns: int) -> BatchSave:
    """`save_many` of a conversation's first `turns` turns into a fresh vault with the model
    on (every turn encoded, none from a cache), against the model encoding the same texts
    alone in the same run (target: < 8 s for 600, a long chat imported while you wait)."""
    part = Conversation(conv.name, conv.turns[:turns])
    vault, index = work / "batch-save" / "vault", work / "batch-save" / "index.sqlite3"
    (vault / "STM").mkdir(parents=True)
    svc = _service(vault, index, embeddings=True)
    svc.use_embedder(embedder)
    t = time.perf_counter()
    saved = len(save_turns(svc, part))
    save_s = time.perf_counter() - t
    vectors = len(queries.embeddings_of(svc.store, embedder.name))
    svc.close()
    t = time.perf_counter()
    embedder.encode([turn.memory_text() for turn in part.turns])
    return {
        "turns": len(part.turns),
        "saved": saved,
        "vectors": vectors,
        "save_s": save_s,
        "encode_s": time.perf_counter() - t,
    }


def run_locomo(
    folder: Path,
    embeddings: bool = True,
    cache_dir: Path | None = DEFAULT_CACHE,
    progress: Callable[[str], None] = lambda _m: None,
    embedder: Embedder | None = None,
    batch_turns: int = 0,
) -> LocomoResult:
    """The figures of every conversation in `folder`; with the model and `batch_turns`, also
    the time of one batch save of that many turns (time_batch_save)."""
    files = sorted(Path(folder).glob("*.json"))
    if not files:
        raise FileNotFoundError(f"no LoCoMo conversation (*.json) in {folder}")
    if embeddings and embedder is None:
        from vault_sync.search.embeddings import Embedder

        embedder = Embedder()
        embedder.load()
    if not embeddings:
        embedder = None
    model: Model | None = embedder
    if embedder is not None and cache_dir is not None:
        slug = re.sub(r"[^A-Za-z0-9]+", "-", embedder.name).strip("-").lower()
        model = QueryVectors(embedder, cache_dir / f"queries.{slug}.npz")
    tallies: dict[str, Tally] = {}
    latencies: list[float] = []
    per_conv: dict[str, ConversationInfo] = {}
    work = Path(tempfile.mkdtemp(prefix="mnemovault-locomo-"))
    started = time.perf_counter()
    try:
        for path in files:
            conv = load_conversation(path)
            progress(f"{conv.name}: {len(conv.turns)} turns, {len(conv.questions)} questions")
            per_conv[conv.name] = run_conversation(conv, work, model, cache_dir, tallies, latencies)
        batch: BatchSave | None = None
        if embedder is not None and batch_turns > 0:
            longest = max((load_conversation(p) for p in files), key=lambda c: len(c.turns))
            progress(f"batch save: {min(batch_turns, len(longest.turns))} turns of {longest.name} with the model")
            batch = time_batch_save(longest, embedder, work, batch_turns)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if isinstance(model, QueryVectors):
            model.save()
    return {
        "folder": str(folder),
        "conversations": per_conv,
        "rankers": {name: t.table() for name, t in tallies.items()},
        # with query vectors from the cache this is the ranking's own time, without encoding
        "hybrid_p50_ms": statistics.median(latencies) * 1000 if latencies else None,
        "query_vectors_cached": isinstance(model, QueryVectors),
        "batch_save": batch,
        "seconds": time.perf_counter() - started,
    }


def render(result: LocomoResult, echo: Callable[[str], None] = print) -> None:
    convs = result["conversations"]
    echo(
        f"LoCoMo retrieval, {len(convs)} conversations from {result['folder']}: "
        f"{sum(c['turns'] for c in convs.values())} turns, {sum(c['questions'] for c in convs.values())} questions "
        f"(categories 1-4), {result['seconds']:.1f} s"
    )
    rows = list(CATEGORIES.values()) + ["overall"]
    for name, table in result["rankers"].items():
        echo(f"\n{name}")
        echo(f"  {'category':<12} {'n':>5} {'hit@5':>7} {'recall@5':>9} {'MRR':>6}")
        for row in rows:
            f = table[row]
            if not f["n"]:
                continue
            echo(f"  {row:<12} {f['n']:>5} {f['hit@5']:>7.3f} {f['recall@5']:>9.3f} {f['mrr']:>6.3f}")
    if result.get("hybrid_p50_ms") is not None:
        how = " (query vectors from the cache: no model time)" if result.get("query_vectors_cached") else ""
        echo(f"\nhybrid search p50: {result['hybrid_p50_ms']:.1f} ms{how}")
    batch = result.get("batch_save")
    if batch:
        echo(
            f"batch save (save_many, the model on, nothing cached): {batch['turns']} turns in {batch['save_s']:.1f} s, "
            f"{batch['vectors']} vectors stored; the model alone encoding the same turns: {batch['encode_s']:.1f} s"
        )
    for name, c in convs.items():
        v = c.get("vectors")
        cached, encoded = (v["from_cache"], v["encoded"]) if v else (0, 0)
        echo(f"{name}: saved {c['turns']} turns in {c['save_s']:.1f} s; vectors {cached} cached, {encoded} encoded")
