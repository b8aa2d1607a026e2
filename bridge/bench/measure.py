"""`mnemovault bench`: every figure next to a floor measured in the same run."""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from vault_sync.dates import MovableClock, utc_now
from vault_sync.index import queries as index_queries  # `queries` names the (query, path) pairs here

from ..paths import import_root, module
from .generate import generate
from .quiet_day import quiet_day_figures
from .quiet_sweep import unchanged_sweep
from .stats import pct
from .sweep_bench import stm_sweep

if TYPE_CHECKING:
    from vault_sync.service import MemoryService


def _service(
    vault: Path, index: Path, clock: Callable[[], datetime] | None = None, trigrams: bool = True, **overrides: Any
) -> MemoryService:
    from vault_sync.index.store import IndexStore
    from vault_sync.service import MemoryService
    from vault_sync.settings import load_settings

    overrides.setdefault("quiet_seconds", 0)
    settings = load_settings(vault=vault, index_path=index, **overrides)
    store = None if trigrams else IndexStore(index, trigrams=False)  # the bench's baseline only
    return MemoryService(settings, clock=clock, store=store) if clock else MemoryService(settings, store=store)


def edit_latency(svc: MemoryService, vault: Path, edits: int, rng: random.Random) -> list[float]:
    from vault_sync.watcher import VaultWatcher

    watcher = VaultWatcher(svc.indexer, svc.layout)
    watcher.start()
    notes = [p for p in (vault / "Projects").glob("*.md")][:500] or list(vault.rglob("*.md"))[:500]
    out = []
    try:
        for i in range(edits):
            path = rng.choice(notes)
            token = f"zqx{i}marker{rng.randint(0, 10**9)}"
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"\n{token}\n")
            started = time.perf_counter()
            while not index_queries.fts_matches(svc.store, token):
                if time.perf_counter() - started > 5:
                    break
                time.sleep(0.0005)
            out.append(time.perf_counter() - started)
    finally:
        watcher.stop()
    return out


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def recall(svc: MemoryService, queries: list[tuple[str, str]]) -> tuple[float, float, list[float]]:
    hits, rr, lat = 0, 0.0, []
    gone = [expected for _, expected in queries if svc.store.note(expected) is None]
    if gone:  # a known item moved (promote, gc) before it was measured: the figure would be wrong
        raise RuntimeError(f"bench: {len(gone)} known-item targets are not in the index, e.g. {gone[0]}")
    for q, expected in queries:
        t = time.perf_counter()
        results = svc.search(q, limit=5, blend_review=False)["results"]
        lat.append(time.perf_counter() - t)
        paths = [r["path"] for r in results]
        if expected in paths:
            hits += 1
            rr += 1 / (paths.index(expected) + 1)
    n = max(1, len(queries))
    return hits / n, rr / n, lat


def rss_of(vault: Path, index: Path, embeddings: bool) -> float:
    """Peak RSS (MB) of a daemon-equivalent process: index open, watcher running, model if on."""
    code = (
        "import resource, sys, time\n"
        f"from {module('bridge.bench.measure')} import _service\n"
        f"from {module('vault_sync.watcher')} import VaultWatcher\n"
        f"svc = _service(__import__('pathlib').Path({str(vault)!r}), __import__('pathlib').Path({str(index)!r}), "
        f"embeddings={embeddings})\n"
        "svc.sync()\n"
        "w = VaultWatcher(svc.indexer, svc.layout); w.start()\n"
        "if svc.settings.embeddings:\n"
        "    svc.search('warm up the model', limit=3)\n"
        "time.sleep(0.5); w.stop()\n"
        # VmHWM is this process's own peak; ru_maxrss would carry the parent's over fork + exec
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')] if sys.platform == 'linux' else []\n"
        "print(int(hwm[0].split()[1]) / 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=str(import_root())
    )
    try:
        return float(out.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return float("nan")


def run_bench(
    notes: int | None, vault_dir: Path | None, quick: bool, progress: Callable[[str], None]
) -> dict[str, Any]:
    rng = random.Random(11)
    work = Path(tempfile.mkdtemp(prefix="mnemovault-bench-"))
    now = utc_now()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None  # shared machines: say how shared
    result: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0], "load": load},
        "measured": now.isoformat(),
        "quick": quick,
    }
    try:
        vault = work / "vault"
        if vault_dir is not None:
            progress(f"copying {vault_dir}")
            shutil.copytree(vault_dir, vault, ignore=shutil.ignore_patterns(".git", ".trash"))
            queries = _queries_from(vault, rng)
            result["vault"] = {"source": str(vault_dir)}
        else:
            if notes is None:
                raise ValueError("bench needs a note count to generate a vault, or a vault to copy")
            progress(f"generating {notes} notes")
            gen = generate(vault, notes, now)
            queries = gen.queries
            result["vault"] = {"generated": notes, "stm": gen.stm}
        count = sum(1 for _ in vault.rglob("*.md"))
        result["vault"]["notes"] = count
        progress("floor (read + parse + FTS5 insert) and cold index, alternated")
        from .cold_index import code_heavy_figures, cold_against_floor

        cold = cold_against_floor(
            vault,
            work,
            lambda v, i: _service(v, i, embeddings=False),
            3 if quick else 5,
            plain=lambda v, i: _service(v, i, embeddings=False, trigrams=False),
        )
        result.update(
            floor_s=cold["floor_s"],
            cold_index_s=cold["cold_index_s"],
            cold_ratio_to_floor=cold["ratio"],
            floor_cpu_s=cold["floor_cpu_s"],
            cold_index_cpu_s=cold["cold_index_cpu_s"],
            cold_cpu_ratio_to_floor=cold["cpu_ratio"],
            cold_index_no_trigram_s=cold["cold_index_no_trigram_s"],
            cold_rounds=cold["rounds"],
        )
        index = work / f"cold-{vault.name}-0.sqlite3"  # a cold index of the vault, for what follows
        result["code_heavy"] = code_heavy_figures(
            notes or 10_000, work, now, lambda v, i: _service(v, i, embeddings=False), progress
        )
        progress("no-change restart")
        restarts = []
        for _ in range(3):
            svc = _service(vault, index, embeddings=False)
            t = time.perf_counter()
            svc.sync()
            restarts.append(time.perf_counter() - t)
            svc.close()
        result["restart_s"] = statistics.median(restarts)
        clock = MovableClock()
        svc = _service(vault, index, clock=clock, embeddings=False)
        progress("edit-to-searchable through the live watcher")
        lat = edit_latency(svc, vault, 100 if not quick else 50, rng)
        result["edit_to_searchable_ms"] = {"p50": pct(lat, 0.5) * 1000, "p95": pct(lat, 0.95) * 1000, "n": len(lat)}
        progress("full-text search")
        r5, mrr, fts_lat = recall(svc, queries)
        result["fulltext"] = {
            "p50_ms": pct(fts_lat, 0.5) * 1000,
            "p95_ms": pct(fts_lat, 0.95) * 1000,
            "recall_at_5": r5,
            "mrr": mrr,
            "queries": len(queries),
        }
        if not quick:  # before promote and gc below move notes away from the queries' paths
            result.update(_semantic(vault, work, queries, progress))
        from .update_bench import update_figures

        result["update_detection"] = update_figures(
            work, not quick, lambda v, i, emb: _service(v, i, embeddings=emb), progress
        )
        from .repeat_bench import repeat_figures

        result["repeat_recognition"] = repeat_figures(
            work, not quick, lambda v, i, emb: _service(v, i, embeddings=emb), progress
        )
        progress("brief (model off)")
        result["brief"] = brief_timing(svc, queries[0][0] if queries else "project")
        progress("sweep")
        clock.at = now  # the same instant for both sweeps: an unchanged vault must get 0 writes
        t = time.perf_counter()
        first = svc.sweep()
        result["sweep"] = {"seconds": time.perf_counter() - t, "written": first["written"], "scanned": first["scanned"]}
        t = time.perf_counter()
        second = svc.sweep()
        result["sweep"].update(second_seconds=time.perf_counter() - t, second_written=second["written"])
        clock.at = now + timedelta(hours=1)
        t = time.perf_counter()
        later = svc.sweep()
        result["sweep"].update(hour_later_seconds=time.perf_counter() - t, hour_later_written=later["written"])
        progress("a quiet day: the default lifecycle every 5 simulated minutes for 24 h")
        result["quiet_day"] = quiet_day_figures(100 if quick else 300)
        result["quiet_sweep"] = unchanged_sweep(
            notes or 10_000, work, now, lambda v, i, clock: _service(v, i, clock=clock, embeddings=False), progress
        )
        progress("promote and gc")
        result["promote"] = _moves(svc.promote_all(dry_run=True)["candidates"], svc.promote)
        result["gc"] = _moves(svc.gc(dry_run=True)["candidates"], lambda ref: svc.archive(ref, reason="bench gc"))
        svc.close()
        if notes is not None:
            result["stm_sweep"] = stm_sweep(
                notes,
                work,
                now,
                lambda v, i, clock: _service(v, i, clock=clock, embeddings=False),
                progress,
                rounds=3 if notes < 50_000 else 1,
            )
        from .import_bench import import_figures

        result["import"] = import_figures(
            work / "import",
            min(notes or 10_000, 10_000),
            lambda v, i: _service(v, i, embeddings=False),
            progress,
            rounds=1 if quick else 3,
        )
        result["cli_search"] = cli_timing(vault, work, progress, embeddings=not quick)
        from .mcp_bench import cold_start, mcp_timing

        result["mcp"] = mcp_timing(
            vault,
            work,
            [q for q, _ in queries[:8]],
            progress,
            embeddings=not quick,
            index=None if quick else work / "emb.sqlite3",
        )
        result["cold_start"] = cold_start(
            vault, work, index if quick else work / "emb.sqlite3", progress, embeddings=not quick
        )
        progress("memory use")
        result["rss_mb"] = {"model_off": rss_of(vault, index, False)}
        if not quick:
            result["rss_mb"]["model_on"] = rss_of(vault, work / "emb.sqlite3", True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return result


def brief_timing(svc: MemoryService, topic: str, runs: int = 9) -> dict[str, Any]:
    """`brief` with and without a topic, 800 tokens, on the bench vault with the model off."""
    svc.brief(None, 800)  # the per-index score inputs are built once per index change
    plain = timed(lambda: svc.brief(None, 800), runs)
    svc.brief(topic, 800)
    with_topic = timed(lambda: svc.brief(topic, 800), runs)
    return {"p50_ms": pct(plain, 0.5) * 1000, "topic_p50_ms": pct(with_topic, 0.5) * 1000, "topic": topic}


MAX_MOVES = 300  # throughput is measured on a sample: a 100k vault has thousands of candidates


def _moves(candidates: list[dict[str, Any]], move: Callable[[str], object]) -> dict[str, Any]:
    sample = candidates[:MAX_MOVES]
    t = time.perf_counter()
    for c in sample:
        move(c["path"])
    took = time.perf_counter() - t
    return {
        "candidates": len(candidates),
        "moved": len(sample),
        "seconds": took,
        "per_s": len(sample) / took if took else None,
    }


def _semantic(
    vault: Path, work: Path, queries: list[tuple[str, str]], progress: Callable[[str], None]
) -> dict[str, Any]:
    from vault_sync.search.embeddings import get_embedder

    out: dict[str, Any] = {}
    svc = _service(vault, work / "emb.sqlite3", embeddings=True)
    svc.sync()
    emb = get_embedder(svc.engine)
    if emb is None:
        raise RuntimeError("embeddings are off: the semantic figures need the model")
    rows = index_queries.indexed_texts(svc.store, 256)
    texts = [f"{r[0]}\n{r[1]}" for r in rows]
    progress("raw model rate")
    emb.encode(texts[:16])
    t = time.perf_counter()
    emb.encode(texts)
    raw = len(texts) / (time.perf_counter() - t)
    progress("embedding backfill")
    t = time.perf_counter()
    report = svc.embed()
    took = time.perf_counter() - t
    done: int = report.get("embedded", 0)
    out["embedding"] = {
        "raw_per_s": raw,
        "backfill_per_s": done / took if took else None,
        "embedded": done,
        "ratio_to_raw": (done / took) / raw if took and raw else None,
    }
    progress("hybrid search")
    r5, mrr, lat = recall(svc, queries)
    out["hybrid"] = {"p50_ms": pct(lat, 0.5) * 1000, "p95_ms": pct(lat, 0.95) * 1000, "recall_at_5": r5, "mrr": mrr}
    svc.close()
    return out


def _queries_from(vault: Path, rng: random.Random) -> list[tuple[str, str]]:
    """Known-item queries for an existing vault: a few distinctive words from a note."""
    notes = sorted(p for p in vault.rglob("*.md") if not any(x.startswith(".") for x in p.relative_to(vault).parts))
    out = []
    for path in rng.sample(notes, min(100, len(notes))):
        words = [w.strip(".,;:()[]#*`\"'") for w in path.read_text(encoding="utf-8", errors="replace").split()]
        words = [w for w in words if len(w) > 6 and w.isalpha()]
        if len(words) >= 3:
            out.append((" ".join(rng.sample(words, 3)), path.relative_to(vault).as_posix()))
    return out


def to_json(result: dict[str, Any]) -> str:
    return json.dumps(result, indent=2, default=str)


def _compile_sources() -> None:
    """Byte-compile the engine and front ends, as installing a wheel does. An editable
    install under PYTHONDONTWRITEBYTECODE (set on this machine) would otherwise compile
    every module again at each start, a cost no installed copy pays."""
    import compileall

    root = Path(__file__).resolve().parents[2]
    for package in ("vault_sync", "bridge"):
        compileall.compile_dir(root / package, quiet=2)


def cli_timing(
    vault: Path, work: Path, progress: Callable[[str], None], runs: int = 5, embeddings: bool = True
) -> dict[str, Any]:
    """Whole-process time of `mnemovault search`, without and with a running daemon, with the
    default settings (meaning search on) unless `embeddings` is off (`--quick`)."""
    exe = shutil.which("mnemovault") or str(Path(sys.executable).with_name("mnemovault"))
    env = dict(
        os.environ,
        MNEMOVAULT_CONFIG_DIR=str(work / "config"),
        MNEMOVAULT_DATA_DIR=str(work / "data"),
        MNEMOVAULT_LOG_DIR=str(work / "logs"),
        MNEMOVAULT_EMBEDDINGS=str(embeddings).lower(),
        MNEMOVAULT_VAULT=str(vault),
        MNEMOVAULT_LIFECYCLE_INTERVAL_SECONDS="3600",
    )
    cmd = [exe, "search", "postgres deploys", "--json"]

    def once() -> float:
        t = time.perf_counter()
        subprocess.run(cmd, env=env, capture_output=True, timeout=300, check=True)
        return time.perf_counter() - t

    _compile_sources()
    progress("CLI search without a daemon")
    once()  # the first run builds the index
    direct = statistics.median(once() for _ in range(runs))
    progress("CLI search through the daemon")
    daemon = subprocess.Popen([exe, "daemon"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not list((work / "config" / "bridges").glob("*.json")):
            time.sleep(0.1)
        once()
        via = statistics.median(once() for _ in range(runs))
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)
    return {"direct_s": direct, "daemon_s": via}
