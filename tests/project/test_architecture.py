"""The code's shape, checked from its source: no import cycle in vault_sync/ or bridge/
(imports for type checking count too), and who may import whom."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGES = ("vault_sync", "bridge")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str) -> set[str]:
    """Modules `name` imports, wherever in the file: in functions, and under
    `if TYPE_CHECKING:` too (an annotation names a dependency like any import)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return found


def import_graph() -> dict[str, set[str]]:
    """module -> the modules of vault_sync/ and bridge/ it imports."""
    files = {_module_name(p): p for folder in PACKAGES for p in (ROOT / folder).rglob("*.py")}
    return {name: {m for m in _imports(path, name) if m in files and m != name} for name, path in files.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                cycle = dfs(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = dfs(node)
            if cycle:
                return cycle
    return None


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_checker_sees_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_graph_reads_every_import():
    graph = import_graph()
    assert "vault_sync.ops.ltm_index" in graph["vault_sync.ops.moves"]  # a plain import
    assert "vault_sync.index.store" in graph["vault_sync.index.queries"]  # under TYPE_CHECKING
    assert "vault_sync.ops.thread" in graph["vault_sync.service"]  # inside a function
    assert "bridge.cli_app" in graph["bridge.cli_memory"] and "vault_sync.service" in graph["bridge.context"]


def test_engine_imports_have_no_cycle():
    graph = import_graph()
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


OPERATIONS = ("vault_sync.ops", "vault_sync.transfer")  # transfer/ builds imports on the ops


def test_only_the_facade_imports_the_operations():
    """The engine (engine.py, lookups.py, the runtime, index/, search/...) imports no
    operation; the operations call each other; in vault_sync/ the facade is the one way in."""
    graph = import_graph()
    found = [
        f"{name} imports {dep}"
        for name, deps in sorted(graph.items())
        for dep in sorted(deps)
        if _inside(name, "vault_sync")
        and not any(_inside(name, p) for p in OPERATIONS)
        and name != "vault_sync.service"
        and any(_inside(dep, p) for p in OPERATIONS)
    ]
    assert found == []


def test_nothing_in_the_engine_imports_the_facade():
    graph = import_graph()
    found = [
        name for name, deps in sorted(graph.items()) if _inside(name, "vault_sync") and "vault_sync.service" in deps
    ]
    assert found == []


def test_search_reads_only():
    """search/ ranks and embeds; it imports no operation nor the import/export code, and
    writes nothing through the write path."""
    graph = import_graph()
    found = [
        f"{name} imports {dep}"
        for name, deps in sorted(graph.items())
        if _inside(name, "vault_sync.search")
        for dep in sorted(deps)
        if _inside(dep, "vault_sync.ops") or _inside(dep, "vault_sync.transfer")
    ]
    found += [
        p.name
        for p in sorted((ROOT / "vault_sync" / "search").rglob("*.py"))
        if ".writes." in p.read_text(encoding="utf-8")
    ]
    assert found == []


# -- the front ends' way into the engine --
# bridge/ imports from vault_sync/ the facade (service.py, which also carries what a front end
# needs before or beside a service: see its docstring) and the modules every front end shares
# with the engine: errors, limits, settings, dates, and projects (the project a command or a
# relay works in is decided before any engine is opened, and the relay, which must start
# light, cannot import the facade). `vault_sync` itself is the empty package.
FRONT_ENDS_MAY_IMPORT = {
    "vault_sync",
    "vault_sync.service",
    "vault_sync.errors",
    "vault_sync.limits",
    "vault_sync.settings",
    "vault_sync.dates",
    "vault_sync.projects",
}
# bridge/bench/ measures the engine's parts one by one (the sweep's batch writer, the index's
# queries, the repeat and may-supersede checks, the watcher) beside their floors: it may reach in
BENCH = "bridge.bench"


def _past_the_facade(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Front-end module -> the engine modules it imports past the facade."""
    found = {
        name: sorted(d for d in deps if _inside(d, "vault_sync") and d not in FRONT_ENDS_MAY_IMPORT)
        for name, deps in graph.items()
        if _inside(name, "bridge") and not _inside(name, BENCH)
    }
    return {name: deps for name, deps in sorted(found.items()) if deps}


def test_the_facade_checker_sees_a_front_end_reaching_in():
    graph = {
        "bridge.x": {"vault_sync.service", "vault_sync.errors", "vault_sync.index.store"},
        "bridge.bench.y": {"vault_sync.index.queries"},
        "vault_sync.ops.save": {"vault_sync.index.store"},
    }
    assert _past_the_facade(graph) == {"bridge.x": ["vault_sync.index.store"]}


def test_front_ends_import_only_the_facade_and_the_shared_modules():
    past = _past_the_facade(import_graph())
    assert past == {}, "go through vault_sync/service.py (or move the helper where it belongs)"


# -- source greps: what may live where --
import re  # noqa: E402

SQL = re.compile(r"\b(SELECT\b.*\bFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b", re.S)
# SQL that is not the index's by design: the bench's floor is a bare FTS5 table in its own
# database, the cost any indexer pays, measured beside the engine's
SQL_NOT_THE_INDEX = {"bridge/bench/floor.py"}


def _source_files():
    for folder in ("vault_sync", "bridge"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path


def _strings(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value
        elif isinstance(node, ast.JoinedStr):
            yield "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)


def test_the_sql_pattern_sees_statements():
    assert SQL.search("SELECT rowid, * FROM notes") and SQL.search("INSERT OR REPLACE INTO conflicts VALUES (?, ?)")
    assert SQL.search("UPDATE notes SET x=?") and SQL.search("DELETE FROM embeddings")
    assert not SQL.search("select the notes to delete from the vault")


def test_no_sql_outside_the_index():
    found = []
    for rel, path in _source_files():
        if rel.startswith("vault_sync/index/") or rel in SQL_NOT_THE_INDEX:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{rel}: {s[:60]!r}" for s in _strings(tree) if SQL.search(s)]
    assert found == []


def test_sync_paths_only_in_the_write_path_and_the_watcher():
    allowed = {"vault_sync/write_path.py", "vault_sync/watcher.py", "vault_sync/index/sync.py"}
    found = [
        rel for rel, path in _source_files() if rel not in allowed and "sync_paths(" in path.read_text(encoding="utf-8")
    ]
    assert found == []


HTTP_CLIENTS = re.compile(
    r"^\s*(import (urllib\.request|httpx|requests)\b|from (urllib\.request|httpx|requests) import"
    r"|.*\bHTTPConnection\()",
    re.M,
)


# the one module that opens connections to the daemon, and one that talks to an in-process
# ASGI app through httpx (no socket, so no proxy can see it)
LOCAL_HTTP_EXEMPT = {"bridge/local_http.py", "bridge/mcp_manifest.py"}


def test_local_http_connections_start_in_one_place():
    # urllib.request and httpx follow HTTP_PROXY and friends; bridge/local_http.py goes direct
    assert HTTP_CLIENTS.search("import urllib.request") and HTTP_CLIENTS.search("    import httpx")
    assert HTTP_CLIENTS.search('conn = http.client.HTTPConnection("127.0.0.1", 80)')
    found = [
        rel
        for rel, path in _source_files()
        if rel not in LOCAL_HTTP_EXEMPT and HTTP_CLIENTS.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_front_ends_set_no_attribute_on_the_service():
    assign = re.compile(r"^\s*(svc|service|self\.svc|self\.service)\.\w+(\.\w+)*\s*=[^=]", re.M)
    found = [
        f"{rel}: {m.group(0).strip()}"
        for rel, path in _source_files()
        if rel.startswith("bridge/")
        for m in assign.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == []
    assert assign.search("    svc.watcher = watcher") and not assign.search("    x = svc.watcher")


# the embedding model, its vector cache and the sweep's and brief's memos belong to the
# runtime: set only through its `use_embedder` / `keep_vectors` / `keep_quiet_sweep` /
# `keep_brief_inputs` (search/model.py, search/vector_cache.py, ops/sweep_memo.py, ops/brief.py)
RUNTIME_STATE = re.compile(r"\.(embedder|vectors|quiet_sweep|brief_inputs)\s*=[^=]")
RUNTIME_STATE_OWNERS = {"vault_sync/runtime.py"}


def test_nothing_outside_sets_the_runtime_state():
    found = []
    for folder in ("vault_sync", "bridge", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in RUNTIME_STATE_OWNERS or rel == "tests/project/test_architecture.py":
                continue
            found += [f"{rel}: {m.group(0)}" for m in RUNTIME_STATE.finditer(path.read_text(encoding="utf-8"))]
    assert found == []
    assert RUNTIME_STATE.search("    svc.embedder = Embedder()") and not RUNTIME_STATE.search("if svc.embedder == x")


def test_switching_the_embedder_goes_to_the_runtime(tmp_path):
    from conftest import make_service

    vault = tmp_path / "v"
    vault.mkdir()
    svc = make_service(vault, embeddings=False)
    marker = object()
    svc.use_embedder(marker)
    assert svc.runtime.embedder is marker and svc.embedder is marker
    assert "embedder" not in vars(svc) and "vectors" not in vars(svc)  # held by the runtime, not the facade


# -- every note write through the write path --
# Modules that may write files themselves, each for a reason; everything else changes the
# vault through `svc.writes` (vault_sync/write_path.py), which holds the lock, writes with
# compare-and-swap, re-indexes and announces.
DIRECT_WRITES_ALLOWED = {
    "vault_sync/write_path.py": "the write path itself",
    "vault_sync/writer.py": "the atomic-write and compare-and-swap helpers the write path calls",
    "vault_sync/rename.py": "the no-replace rename the write path's move calls",
    "vault_sync/edit.py": "patch_file, a compare-and-swap helper over writer.update_file",
    "vault_sync/batch.py": "the batch writer of the sweep (thousands of score rewrites, one fsync)",
    "vault_sync/ops/sweep.py": "hands its batch to batch.write_many, then indexes via writes.scores_recorded",
    "vault_sync/lease.py": "the device id in the config folder (outside the vault); the lease goes through safe_files",
    "vault_sync/safe_files.py": "the engine's own files (.mnemovault/: journal, lease, link forms, settings at "
    "init; the daemon's lock; the plugin's install), never through a link",
    "vault_sync/index/health.py": "sets a broken index file aside (outside the vault)",
    "vault_sync/sample.py": "builds the demo vault's copy before any service runs on it",
    "bridge/paths.py": "the front ends' config and token files",
    "bridge/mcp_manifest.py": "a maintainer's command rewriting bridge/mcp_manifest.json in the source tree",
    "vault_sync/transfer/export.py": "the export's output file, outside the vault (write_out refuses the vault)",
    "bridge/login_service.py": "the login service unit files",
    "bridge/mcp_proxy.py": "a debug report of loaded modules",
    "bridge/daemon_start.py": "the daemon's log file",
    "bridge/vault_lock.py": "the daemon's lock file in .mnemovault/, not a note",
    "bridge/bench/": "the bench plays the person (edits, generated vaults) and caches vectors",
}
WRITER_PRIMITIVES = {"update_file", "create_exclusive", "write_atomic", "write_many", "rename_noreplace", "patch_file"}
WRITE_MODE = re.compile(r"[wax+]")


def _direct_writes(tree: ast.AST) -> list[str]:
    """Calls that write or rename a file: Path.write_text/write_bytes, open/fdopen for
    writing, os.replace/os.rename, Path.replace/rename (one argument: a str has two), and
    the writer primitives the write path is made of."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        on_os = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "os"
        mode = next((k.value for k in node.keywords if k.arg == "mode"), node.args[1] if len(node.args) > 1 else None)
        if name in ("write_text", "write_bytes") or name in WRITER_PRIMITIVES:
            found.append(name)
        elif name in ("replace", "rename") and (on_os or (len(node.args) == 1 and not node.keywords)):
            found.append(name)
        elif name in ("open", "fdopen") and not on_os or (on_os and name == "fdopen"):
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and WRITE_MODE.search(mode.value):
                found.append(f"{name}(..., {mode.value!r})")
    return found


def test_the_write_checker_sees_writes():
    seen = _direct_writes(
        ast.parse(
            "p.write_text('x')\nopen(p, 'w')\nos.replace(a, b)\ntmp.replace(dst)\nupdate_file(p, b, t)\n"
            "with os.fdopen(fd, 'wb') as fh: pass\n'a-b'.replace('-', '')\nopen(p)\nopen(p, "
            "'rb')\nnow.replace(tzinfo=utc)\n"
        )
    )
    assert seen == ["write_text", "open(..., 'w')", "replace", "replace", "update_file", "fdopen(..., 'wb')"]


def test_no_direct_file_write_outside_the_write_path():
    found = []
    for rel, path in _source_files():
        if any(
            rel == allowed or (allowed.endswith("/") and rel.startswith(allowed)) for allowed in DIRECT_WRITES_ALLOWED
        ):
            continue
        found += [f"{rel}: {call}" for call in _direct_writes(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == []


def test_an_error_code_names_its_engine_class():
    from vault_sync import errors as e

    def every(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from every(sub)

    classes = [c for c in every(e.MnemovaultError) if c.__module__ == "vault_sync.errors"]
    assert len({c.code for c in classes}) == len(classes)  # each code names one class
    assert all(e.error_class(c.code) is c for c in classes)
    assert e.error_class("disk_full") is e.DiskFull and e.error_class("nonsense") is e.MnemovaultError


# how a memory ages is decided in one module: vault_sync/ageing.py combines the pure formulas
# of scoring.py and due.py; nothing else may, so no caller can drift from the policy
AGEING = "vault_sync.ageing"
SCORING_FORMULAS = ("decay_factor", "score", "review_priority", "in_danger_zone", "decide", "state_of")
AGEING_FORMULAS_ALLOWED = {AGEING, "vault_sync.due", "vault_sync.scoring"}
# brief's top-k scan bounds scores by the decay curve without scoring every memory; its result
# is checked against ageing's scores (tests/engine/test_brief.py::test_strongest_matches_a_brute_force_ranking)
CURVE_READERS = {"vault_sync.ops.brief": {"vault_sync.scoring.decay_factor"}}


def _ageing_breaches(source: str, name: str, is_package: bool = False) -> list[str]:
    """The formulas of scoring.py and due.py this module imports, or those modules whole
    (`from .. import scoring` would let it combine them under another name)."""
    package = name if is_package else name.rsplit(".", 1)[0]
    whole = ("vault_sync.scoring", "vault_sync.due")
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name in whole]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            for a in node.names:
                full = f"{base}.{a.name}"
                if full in whole or base == "vault_sync.due" or (base == whole[0] and a.name in SCORING_FORMULAS):
                    found.append(full)
    return sorted(set(found))


def test_the_ageing_checker_sees_a_caller_combining():
    src = (
        "from ..scoring import ScoringParams, decay_factor, decide\nfrom ..due import seconds_until\n"
        "from .. import scoring\nimport vault_sync.due\nfrom ..ageing import age\n"
    )
    assert _ageing_breaches(src, "vault_sync.ops.x") == [
        "vault_sync.due",
        "vault_sync.due.seconds_until",
        "vault_sync.scoring",
        "vault_sync.scoring.decay_factor",
        "vault_sync.scoring.decide",
    ]
    assert _ageing_breaches("from ..scoring import DAY, ScoringParams, is_cross_domain\n", "vault_sync.ops.x") == []


def test_only_the_ageing_policy_combines_the_decay_formulas():
    """Score, state, decision, review priority and due dates come from vault_sync/ageing.py:
    a module that combined scoring.py's formulas itself could drift from the policy (a pinned
    memory's score falling, a superseded one reviewed)."""
    found = []
    for folder in PACKAGES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = _module_name(path)
            if name in AGEING_FORMULAS_ALLOWED:
                continue
            breaches = _ageing_breaches(path.read_text(encoding="utf-8"), name, path.name == "__init__.py")
            found += [f"{name} imports {b}" for b in breaches if b not in CURVE_READERS.get(name, set())]
    assert found == []
