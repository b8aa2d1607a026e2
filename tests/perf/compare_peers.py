"""Compare mnemovault with Basic Memory and CortexGraph on the same generated vault.

Not a test (pytest does not collect it): a script; its figures are in docs/peers.md.

    .venv/bin/python tests/perf/compare_peers.py --notes 1000

Each peer is installed with pip (uv only as a fallback, see `_install`) into its own virtual
environment under the cache dir (default ~/.cache/mnemovault-peers, `--cache-dir` or
MNEMOVAULT_PEERS_CACHE). mnemovault runs from this repository in a subprocess of the main venv.
Every tool gets its own copy of one generated vault (bridge.bench.generate) and is measured
on the same four things:

- cold index: from nothing to every note searchable, with the tool's own indexing path;
- incremental update: append a unique token to the same 10 notes, run the tool's own
  resync, time it, and check that each token is then found by the tool's search;
- search latency p50/p95 over the generated known-item queries (in-process API calls,
  after one warm-up query);
- known-item hit rate @5 on those queries (the expected note among the first 5 results).

Peers run one at a time, each with a timeout; a phase that runs out of time is recorded as
"did not finish in N s" rather than hanging. Results are printed as a Markdown table and as
JSON (`--json-out` writes the JSON to a file, `--doc` rewrites the results section of
docs/peers.md).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEERS = {
    "basic-memory": {"version": "0.24.1", "python": (3, 12)},
    # cortexgraph 1.2.1 asks for mcp>=1.2.0 but imports mcp.server.fastmcp, which mcp 2.x removed
    # (renamed MCPServer): with the newest mcp it cannot even be imported, so mcp<2 is pinned beside it.
    "cortexgraph": {"version": "1.2.1", "python": (3, 10), "with": ["mcp<2"]},
}
EDITS = 10


# --------------------------------------------------------------------------- helpers


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(
    cmd: list[str], timeout: float, env: dict | None = None, cwd: Path | None = None
) -> tuple[int | None, str, str, float]:
    """Run a command; returns (rc or None on timeout, stdout, stderr, seconds). Kills the whole group on timeout."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(cwd) if cwd else None,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err, time.perf_counter() - started
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        return None, out, err, time.perf_counter() - started


def python_at_least(want: tuple[int, int]) -> str | None:
    """A Python interpreter >= want: this one, pythonX.Y on PATH, or a pyenv version."""
    candidates = [sys.executable, getattr(sys, "_base_executable", sys.executable)]
    for minor in range(want[1], 15):
        candidates.append(shutil.which(f"python{want[0]}.{minor}") or "")
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3")))
    candidates += sorted(glob.glob("/usr/bin/python3.*")) + sorted(glob.glob("/usr/local/bin/python3.*"))
    for exe in candidates:
        if not exe or not os.path.exists(exe):
            continue
        try:
            out = subprocess.run(
                [exe, "-c", "import sys, venv; print(*sys.version_info[:2])"],
                capture_output=True,
                text=True,
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.returncode == 0:
            major, minor = map(int, out.stdout.split())
            if (major, minor) >= want:
                return exe
    return None


# --------------------------------------------------------------------------- install


def _requires(venv_py: str, spec: str, work: Path) -> list[str]:
    """Requires-Dist of the wheel, read before installing anything (pip download --no-deps)."""
    dest = work / "wheels"
    dest.mkdir(parents=True, exist_ok=True)
    rc, _, err, _ = run([venv_py, "-m", "pip", "download", "--no-deps", "-q", spec, "-d", str(dest)], 600)
    if rc != 0:
        raise RuntimeError(f"pip download {spec} failed: {err.strip()[-800:]}")
    name = spec.split("==")[0].replace("-", "_")
    wheels = sorted(dest.glob(f"{name}-*.whl"))
    if not wheels:
        return []
    with zipfile.ZipFile(wheels[-1]) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        text = zf.read(meta).decode()
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:")]


def _uv(cache: Path) -> str:
    tools = cache / "tools"
    uv = tools / "bin" / "uv"
    if not uv.exists():
        subprocess.run([sys.executable, "-m", "venv", str(tools)], check=True)
        subprocess.run([str(tools / "bin" / "python"), "-m", "pip", "install", "-q", "uv"], check=True)
    return str(uv)


def ensure_peer(name: str, cache: Path, work: Path) -> dict:
    """Install `name` in its own venv under `cache` (once); return its python and install notes."""
    info = PEERS[name]
    spec = f"{name}=={info['version']}"
    venv = cache / f"{name}-{info['version']}"
    py = venv / "bin" / "python"
    marker = venv / ".mnemovault-installed"
    notes: list[str] = []
    extra = info.get("with", [])
    if marker.exists():
        record = json.loads(marker.read_text())
        if record.get("with", []) == extra:
            return {"python": str(py), **record}
    base = python_at_least(info["python"])
    if base is None:
        raise RuntimeError(f"{name} needs Python >= {'.'.join(map(str, info['python']))}; none found")
    shutil.rmtree(venv, ignore_errors=True)
    log(f"creating venv for {spec} with {base}")
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    requires = _requires(str(py), spec, work)
    # torch pulls a multi-GB CUDA build from PyPI unless the local CPU build is installed first
    if any(re.match(r"(torch|sentence-transformers|transformers)\b", r) and "extra ==" not in r for r in requires):
        log("installing torch==2.13.0 first (CPU build)")
        subprocess.run([str(py), "-m", "pip", "install", "-q", "torch==2.13.0"], check=True)
        notes.append("torch==2.13.0 installed first")
    log(f"pip install {spec} {' '.join(extra)}")
    rc, _, err, _ = run([str(py), "-m", "pip", "install", "-q", spec, *extra], 1800)
    if rc != 0:
        missing = re.findall(r"No matching distribution found for ([A-Za-z0-9_.-]+)([<>=!~][^;\s]*)?", err)
        if not missing:
            raise RuntimeError(f"pip install {spec} failed: {err.strip()[-1500:]}")
        # A pin newer than what the index serves (seen: certifi>=2026.10.19 via fastmcp-slim):
        # relax only that requirement, with uv's documented --override.
        overrides = work / f"{name}-overrides.txt"
        overrides.write_text("".join(f"{pkg}\n" for pkg, _ in missing))
        log(f"pip could not resolve {missing}; retrying with uv --override {overrides.read_text().split()}")
        rc, _, err2, _ = run(
            [_uv(cache), "pip", "install", "--python", str(py), spec, *extra, "--override", str(overrides)], 1800
        )
        if rc != 0:
            raise RuntimeError(f"uv install {spec} failed: {err2.strip()[-1500:]}")
        notes.append(
            "pip could not resolve "
            + ", ".join(p + c for p, c in missing)
            + " (not on the index here); installed with uv pip --override "
            + ", ".join(p for p, _ in missing)
        )
    if extra:
        notes.append("installed together with " + ", ".join(extra))
    record = {
        "with": extra,
        "notes": notes,
        "requires_torch": any("torch" in r and "extra ==" not in r for r in requires),
    }
    marker.write_text(json.dumps(record))
    return {"python": str(py), **record}


def pkg_version(py: str, dist: str) -> str:
    out = subprocess.run(
        [py, "-c", f"import importlib.metadata as m; print(m.version({dist!r}))"], capture_output=True, text=True
    )
    return out.stdout.strip() or "?"


# --------------------------------------------------------------------------- the edits


def pick_edits(vault: Path, n: int = EDITS) -> list[str]:
    notes = sorted(
        p.relative_to(vault).as_posix()
        for p in vault.rglob("*.md")
        if not any(part.startswith(".") for part in p.relative_to(vault).parts)
    )
    return random.Random(3).sample(notes, min(n, len(notes)))


def edit_token(i: int) -> str:
    return f"zqxpeer{i}edit"


# --------------------------------------------------------------------------- drivers
# Each driver runs inside the tool's own venv, reads spec.json, and rewrites result.json after
# every phase, so a timeout still leaves the phases that finished.

COMMON = r"""
import json, os, sys, time
from pathlib import Path
SPEC = json.loads(Path(sys.argv[1]).read_text())
OUT = Path(sys.argv[2])
RESULT = {}
def save():
    OUT.write_text(json.dumps(RESULT, indent=1, default=str))
def phase(name):
    RESULT["running"] = name; save()
def append_edits(vault):
    for i, rel in enumerate(SPEC["edits"]):
        with open(Path(vault, rel), "a", encoding="utf-8") as fh:
            fh.write("\n%s\n" % SPEC["tokens"][i])
"""

MNEMOVAULT_DRIVER = (
    COMMON
    + r"""
sys.path.insert(0, SPEC["repo"])
from bridge.bench.measure import _service
vault = Path(SPEC["vault"])
index = Path(SPEC["work"]) / "mnemovault.sqlite3"
phase("cold_index")
svc = _service(vault, index, embeddings=False)
t = time.perf_counter(); svc.sync(); RESULT["cold_index_s"] = time.perf_counter() - t
RESULT["indexed"] = svc.store.query("SELECT count(*) FROM fts")[0][0]
phase("search")
svc.search("warm up", limit=5, blend_review=False)
lat, hits = [], 0
for q, expected in SPEC["queries"]:
    t = time.perf_counter(); res = svc.search(q, limit=5, blend_review=False)["results"]; lat.append(time.perf_counter() - t)
    hits += expected in [r["path"] for r in res]
RESULT["search_lat_s"] = lat; RESULT["hits"] = hits
phase("incremental")
append_edits(vault)
t = time.perf_counter(); svc.sync(); RESULT["incremental_s"] = time.perf_counter() - t
RESULT["incremental_found"] = sum(rel in [r["path"] for r in svc.search(tok, limit=5, blend_review=False)["results"]]
                                  for rel, tok in zip(SPEC["edits"], SPEC["tokens"]))
RESULT["incremental_how"] = "MemoryService.sync() (the rescan run at daemon start; the live watcher is measured by `mnemovault bench`)"
svc.close()
RESULT.pop("running"); RESULT["done"] = True; save()
"""
)

CORTEXGRAPH_STM_DRIVER = (
    COMMON
    + r"""
import frontmatter
os.environ["CORTEXGRAPH_STORAGE_PATH"] = str(Path(SPEC["work"]) / "stm")
os.environ["CORTEXGRAPH_ENABLE_EMBEDDINGS"] = "false"
from cortexgraph.context import db
from cortexgraph.tools.save import save_memory
from cortexgraph.tools.search import search_memory
vault = Path(SPEC["vault"])
def load(rel):
    post = frontmatter.load(Path(vault, rel))
    tags = post.get("tags") or []
    tags = [str(t) for t in (tags if isinstance(tags, list) else [tags])]
    return "%s\n\n%s" % (Path(rel).stem, post.content), tags
notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
phase("cold_index")
t = time.perf_counter()
db.connect()
id_to_path = {}
for rel in notes:
    content, tags = load(rel)
    try:
        r = save_memory(content=content, tags=tags)
    except ValueError:
        r = save_memory(content=content)
    id_to_path[r["memory_id"]] = rel
RESULT["cold_index_s"] = time.perf_counter() - t
RESULT["indexed"] = db.count_memories()
phase("search")
search_memory(query="warm up", top_k=5)
lat, hits = [], 0
for q, expected in SPEC["queries"]:
    t = time.perf_counter(); res = search_memory(query=q, top_k=5)["results"]; lat.append(time.perf_counter() - t)
    hits += expected in [id_to_path.get(r["id"]) for r in res][:5]
RESULT["search_lat_s"] = lat; RESULT["hits"] = hits
phase("incremental")
append_edits(vault)
t = time.perf_counter()
new_ids = {}
for rel in SPEC["edits"]:  # no tool edits a memory's content: the edited note is saved again
    content, tags = load(rel)
    try:
        new_ids[save_memory(content=content, tags=tags)["memory_id"]] = rel
    except ValueError:
        new_ids[save_memory(content=content)["memory_id"]] = rel
RESULT["incremental_s"] = time.perf_counter() - t
id_to_path.update(new_ids)
RESULT["incremental_found"] = sum(rel in [id_to_path.get(r["id"]) for r in search_memory(query=tok, top_k=5)["results"]]
                                  for rel, tok in zip(SPEC["edits"], SPEC["tokens"]))
RESULT["incremental_how"] = "save_memory() of the 10 edited notes (no MCP tool changes a memory's content)"
RESULT.pop("running"); RESULT["done"] = True; save()
"""
)

CORTEXGRAPH_LTM_DRIVER = (
    COMMON
    + r"""
vault = Path(SPEC["vault"])
os.environ["CORTEXGRAPH_STORAGE_PATH"] = str(Path(SPEC["work"]) / "stm-empty")
os.environ["CORTEXGRAPH_ENABLE_EMBEDDINGS"] = "false"
os.environ["LTM_VAULT_PATH"] = str(vault)
from cortexgraph.context import db
from cortexgraph.storage.ltm_index import LTMIndex
from cortexgraph.tools.search_unified import search_unified
db.connect()
phase("cold_index")
idx = LTMIndex(vault_path=vault)
try:
    t = time.perf_counter(); idx.build_index(force=True); RESULT["cold_index_s"] = time.perf_counter() - t
except TypeError as exc:
    # save_index() json.dumps the parsed frontmatter, and YAML turns `created: 2026-...` into a
    # datetime: the index cannot be written for such a vault. Record it, then patch only that
    # (str() for what JSON cannot hold) so the remaining figures can still be taken.
    RESULT["crash"] = "LTMIndex.build_index: %s: %s" % (type(exc).__name__, exc)
    import types, cortexgraph.storage.ltm_index as ltm_mod
    ltm_mod.json = types.SimpleNamespace(dumps=lambda o, **k: json.dumps(o, default=str, **k), loads=json.loads)
    RESULT["workaround"] = "driver patched ltm_index's json.dumps with default=str"
    idx = LTMIndex(vault_path=vault)
    t = time.perf_counter(); idx.build_index(force=True); RESULT["cold_index_s"] = time.perf_counter() - t
RESULT["indexed"] = idx.get_stats()["total_documents"]
phase("search")
search_unified(query="warm up", limit=5)
lat, hits = [], 0
for q, expected in SPEC["queries"]:
    t = time.perf_counter(); res = search_unified(query=q, limit=5)["results"]; lat.append(time.perf_counter() - t)
    hits += expected in [r["path"] for r in res][:5]
RESULT["search_lat_s"] = lat; RESULT["hits"] = hits
phase("incremental")
time.sleep(0.05)
append_edits(vault)
t = time.perf_counter(); LTMIndex(vault_path=vault).build_index(force=False); RESULT["incremental_s"] = time.perf_counter() - t
RESULT["incremental_found"] = sum(rel in [r["path"] for r in search_unified(query=tok, limit=5)["results"]]
                                  for rel, tok in zip(SPEC["edits"], SPEC["tokens"]))
RESULT["incremental_how"] = "LTMIndex.build_index(force=False) (mtime-based incremental rebuild)"
RESULT.pop("running"); RESULT["done"] = True; save()
"""
)

BASIC_MEMORY_SEARCH_DRIVER = (
    COMMON
    + r"""
import asyncio
from basic_memory.mcp.tools import search_notes
async def main():
    async def ask(q):
        r = await search_notes(query=q, project="bench", output_format="json", page_size=5, search_type="text")
        if isinstance(r, str):
            return []
        return [x.get("file_path") for x in r.get("results", [])][:5]
    if SPEC.get("mode") == "tokens":
        RESULT["incremental_found"] = sum([rel in await ask(tok) for rel, tok in zip(SPEC["edits"], SPEC["tokens"])])
        return
    phase("search")
    await ask("warm up")
    lat, hits = [], 0
    for q, expected in SPEC["queries"]:
        t = time.perf_counter(); paths = await ask(q); lat.append(time.perf_counter() - t)
        hits += expected in paths
    RESULT["search_lat_s"] = lat; RESULT["hits"] = hits
asyncio.run(main())
RESULT.pop("running", None); RESULT["done"] = True; save()
"""
)


def run_driver(py: str, source: str, spec: dict, work: Path, timeout: float, env: dict | None = None) -> dict:
    work.mkdir(parents=True, exist_ok=True)
    script, spec_path, out = work / "driver.py", work / "spec.json", work / "result.json"
    script.write_text(textwrap.dedent(source))
    spec_path.write_text(json.dumps(spec))
    out.unlink(missing_ok=True)
    rc, stdout, stderr, took = run([py, str(script), str(spec_path), str(out)], timeout, env=env, cwd=work)
    result = json.loads(out.read_text()) if out.exists() else {}
    (work / "driver.log").write_text(stdout + "\n--- stderr ---\n" + stderr)
    if rc is None:
        result["timeout"] = f"{result.get('running', 'start')}: did not finish in {timeout:.0f} s"
    elif rc != 0:
        result["error"] = (stderr.strip().splitlines() or ["exit %s" % rc])[-1][:300]
    return result


# --------------------------------------------------------------------------- per tool


def summarize(raw: dict, nq: int) -> dict:
    lat = raw.pop("search_lat_s", None)
    if lat:
        raw["search_p50_ms"] = pct(lat, 0.5) * 1000
        raw["search_p95_ms"] = pct(lat, 0.95) * 1000
    if "hits" in raw:
        raw["hit_at_5"] = raw["hits"] / max(1, nq)
    return raw


def measure_mnemovault(spec: dict, work: Path, timeout: float) -> dict:
    version = subprocess.run(
        [sys.executable, "-c", "import importlib.metadata as m; print(m.version('mnemovault'))"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    env = dict(
        os.environ,
        MNEMOVAULT_EMBEDDINGS="false",
        MNEMOVAULT_DATA_DIR=str(work / "data"),
        MNEMOVAULT_CONFIG_DIR=str(work / "config"),
        MNEMOVAULT_LOG_DIR=str(work / "logs"),
    )
    raw = run_driver(
        sys.executable, MNEMOVAULT_DRIVER, {**spec, "repo": str(ROOT), "work": str(work)}, work, timeout, env
    )
    return {
        "tool": "mnemovault",
        "version": version,
        "how": "MemoryService.sync()/search(), full-text, embeddings off",
        **summarize(raw, len(spec["queries"])),
    }


def measure_cortexgraph(spec: dict, work: Path, timeout: float, cache: Path) -> list[dict]:
    inst = ensure_peer("cortexgraph", cache, work)
    py, version = inst["python"], pkg_version(inst["python"], "cortexgraph")
    env = dict(os.environ, HOME=str(work / "home"), XDG_CONFIG_HOME=str(work / "xdg"), GIT_AUTO_COMMIT="false")
    out = []
    log("cortexgraph: save_memory / search_memory (its STM store)")
    raw = run_driver(py, CORTEXGRAPH_STM_DRIVER, {**spec, "work": str(work / "stm")}, work / "stm", timeout, env)
    out.append(
        {
            "tool": "CortexGraph (STM: save_memory + search_memory)",
            "version": version,
            "how": "MCP tool functions called in-process; embeddings off (no model can be downloaded here)",
            "install_notes": inst["notes"],
            **summarize(raw, len(spec["queries"])),
        }
    )
    log("cortexgraph: LTM vault index + search_unified")
    ltm_spec = {**spec, "vault": spec["vault_ltm"], "work": str(work / "ltm")}
    raw = run_driver(py, CORTEXGRAPH_LTM_DRIVER, ltm_spec, work / "ltm", timeout, env)
    out.append(
        {
            "tool": "CortexGraph (LTM: vault index + search_unified)",
            "version": version,
            "how": "LTMIndex.build_index on the vault copy; search_unified MCP tool in-process",
            "install_notes": inst["notes"],
            **summarize(raw, len(spec["queries"])),
        }
    )
    return out


def measure_basic_memory(spec: dict, work: Path, index_timeout: float, timeout: float, cache: Path) -> dict:
    inst = ensure_peer("basic-memory", cache, work)
    py = inst["python"]
    bm = str(Path(py).with_name("basic-memory"))
    version = pkg_version(py, "basic-memory")
    env = dict(
        os.environ,
        BASIC_MEMORY_CONFIG_DIR=str(work / "config"),
        HOME=str(work / "home"),
        BASIC_MEMORY_AUTO_UPDATE="false",
        BASIC_MEMORY_CLOUD_PROMO_OPT_OUT="true",
        BASIC_MEMORY_LOG_LEVEL="WARNING",
        HF_HUB_OFFLINE="1",
        LOGFIRE_IGNORE_NO_CONFIG="1",
        NO_COLOR="1",
        COLUMNS="200",
    )
    (work / "home").mkdir(parents=True, exist_ok=True)
    row: dict = {
        "tool": "Basic Memory",
        "version": version,
        "install_notes": inst["notes"],
        "how": "CLI `project add` (indexes before returning) and `reindex --search`; "
        "search_notes MCP tool in-process, search_type=text",
    }
    vault = Path(spec["vault"])
    rc, out, err, took = run([bm, "--version"], 120, env=env)
    row["cli_startup_s"] = took
    log("basic-memory: project add (cold index)")
    rc, out, err, took = run([bm, "project", "add", "bench", str(vault), "--default"], index_timeout, env=env)
    (work / "project-add.log").write_text(out + "\n--- stderr ---\n" + err)
    if rc is None:
        row["timeout"] = f"cold_index: did not finish in {index_timeout:.0f} s"
        return row
    if rc != 0:
        row["error"] = "project add: " + (err.strip() or out.strip()).splitlines()[-1][:300]
        return row
    row["cold_index_s"] = took
    m = re.search(r"(\d+) observed, (\d+) indexed, (\d+) failed", out)
    if m:
        row["indexed"] = int(m.group(2))
    if "semantic search is unavailable" in out or "Embeddings skipped" in out:
        row["semantic"] = "skipped by Basic Memory: semantic search unavailable on this host"
    log("basic-memory: search")
    raw = run_driver(py, BASIC_MEMORY_SEARCH_DRIVER, spec, work / "search", timeout, env)
    row.update(summarize(raw, len(spec["queries"])))
    row.pop("done", None)
    log("basic-memory: edit 10 notes, reindex --search")
    for i, rel in enumerate(spec["edits"]):
        with open(vault / rel, "a", encoding="utf-8") as fh:
            fh.write(f"\n{spec['tokens'][i]}\n")
    rc, out, err, took = run([bm, "reindex", "--search", "--project", "bench"], index_timeout, env=env)
    (work / "reindex.log").write_text(out + "\n--- stderr ---\n" + err)
    if rc is None:
        row["timeout"] = f"incremental: did not finish in {index_timeout:.0f} s"
        return row
    row["incremental_s"] = took
    row["incremental_how"] = "`basic-memory reindex --search` CLI (wall time, includes CLI start-up)"
    raw = run_driver(py, BASIC_MEMORY_SEARCH_DRIVER, {**spec, "mode": "tokens"}, work / "tokens", timeout, env)
    row["incremental_found"] = raw.get("incremental_found")
    return row


# --------------------------------------------------------------------------- report


def fmt_s(v) -> str:
    if v is None:
        return "–"
    return f"{v * 1000:.0f} ms" if v < 1 else f"{v:.1f} s"


def table(rows: list[dict], nq: int) -> str:
    lines = [
        "| tool | version | cold index | incremental (10 edits) | found after edit | search p50 | search p95 | hit@5 |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        bad = r.get("timeout") or r.get("error")
        cold = fmt_s(r.get("cold_index_s")) if "cold_index_s" in r else (bad or "–")
        inc = fmt_s(r.get("incremental_s")) if "incremental_s" in r else ("–" if not bad else "not reached")
        found = f"{r['incremental_found']}/{EDITS}" if r.get("incremental_found") is not None else "–"
        p50 = f"{r['search_p50_ms']:.1f} ms" if "search_p50_ms" in r else "–"
        p95 = f"{r['search_p95_ms']:.1f} ms" if "search_p95_ms" in r else "–"
        hit = f"{r['hit_at_5']:.2f} ({r['hits']}/{nq})" if "hit_at_5" in r else "–"
        lines.append(f"| {r['tool']} | {r.get('version', '?')} | {cold} | {inc} | {found} | {p50} | {p95} | {hit} |")
    notes = [f"- {r['tool']}: {r.get('timeout') or r.get('error')}" for r in rows if r.get("timeout") or r.get("error")]
    notes += [
        f"- {r['tool']}: {r['crash']}; figures taken after a workaround ({r['workaround']})"
        for r in rows
        if r.get("crash")
    ]
    return "\n".join(lines + ([""] + notes if notes else []))


def machine() -> dict:
    model = ""
    try:
        model = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = ""
    try:
        kb = int(next(l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal")))
        mem = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration):
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu": model,
        "ram": mem,
        "os": platform.platform(),
        "python": sys.version.split()[0],
    }


def write_doc(doc: Path, result: dict, md: str) -> None:
    start, end = "<!-- results:start -->", "<!-- results:end -->"
    m = result["machine"]
    block = (
        f"{start}\n"
        f"Measured {result['date']} on {m['cpus']} cores ({m['cpu'] or 'unknown CPU'}, {m['ram']} RAM), "
        f"{result['notes']} generated notes, {result['queries']} known-item queries, {EDITS} edits "
        f"(`{result['command']}`, {result['seconds']:.0f} s in all).\n\n{md}\n{end}"
    )
    text = doc.read_text() if doc.exists() else f"# Peers\n\n{start}\n{end}\n"
    if start in text and end in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end) :]
    else:
        text += "\n" + block + "\n"
    doc.write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(os.environ.get("MNEMOVAULT_PEERS_CACHE", "~/.cache/mnemovault-peers")).expanduser(),
    )
    ap.add_argument("--index-timeout", type=float, default=900, help="seconds for a cold index (default 900)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds for each other phase group (default 600)")
    ap.add_argument("--only", nargs="*", choices=["mnemovault", "basic-memory", "cortexgraph"])
    ap.add_argument("--json-out", type=Path)
    ap.add_argument("--doc", type=Path, help="rewrite the results block of this Markdown file (e.g. docs/peers.md)")
    ap.add_argument("--keep", action="store_true", help="keep the work dir (logs, vault copies)")
    args = ap.parse_args(argv)

    sys.path.insert(0, str(ROOT))
    from bridge.bench.generate import generate

    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="mnemovault-peers-"))
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    only = set(args.only or ["mnemovault", "basic-memory", "cortexgraph"])
    rows: list[dict] = []
    try:
        log(f"generating {args.notes} notes in {work}")
        gen = generate(work / "vault", args.notes, datetime.now(timezone.utc))
        edits = pick_edits(gen.root)
        base = {"queries": gen.queries, "edits": edits, "tokens": [edit_token(i) for i in range(len(edits))]}

        def copy(name: str) -> str:
            dst = work / name / "vault"
            shutil.copytree(gen.root, dst)
            return str(dst)

        # one tool at a time: the machine is shared
        if "mnemovault" in only:
            log("mnemovault")
            rows.append(
                measure_mnemovault(
                    {**base, "vault": copy("mnemovault")}, work / "mnemovault", args.index_timeout + args.timeout
                )
            )
        if "basic-memory" in only:
            log("basic-memory")
            try:
                rows.append(
                    measure_basic_memory(
                        {**base, "vault": copy("basic-memory")},
                        work / "basic-memory",
                        args.index_timeout,
                        args.timeout,
                        args.cache_dir,
                    )
                )
            except Exception as exc:  # an install that cannot work here is a result too
                rows.append(
                    {"tool": "Basic Memory", "version": PEERS["basic-memory"]["version"], "error": str(exc)[:500]}
                )
        if "cortexgraph" in only:
            log("cortexgraph")
            try:
                spec = {**base, "vault": copy("cortexgraph"), "vault_ltm": copy("cortexgraph-ltm")}
                rows.extend(
                    measure_cortexgraph(spec, work / "cortexgraph", args.index_timeout + args.timeout, args.cache_dir)
                )
            except Exception as exc:
                rows.append(
                    {"tool": "CortexGraph", "version": PEERS["cortexgraph"]["version"], "error": str(exc)[:500]}
                )
    finally:
        if args.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    nq = len(gen.queries)
    result = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "machine": machine(),
        "notes": args.notes,
        "queries": nq,
        "edits": EDITS,
        "seconds": time.perf_counter() - started,
        "command": f".venv/bin/python tests/perf/compare_peers.py --notes {args.notes}",
        "results": rows,
    }
    md = table(rows, nq)
    print(md)
    print()
    print(json.dumps(result, indent=2, default=str))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2, default=str))
    if args.doc:
        write_doc(args.doc, result, md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
