"""The wheel's one import package: the build hook's import rewriter (.ci/hatch_build.py) and
the staged tree it makes, imported with nothing but that tree on sys.path."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest
from conftest import ROOT

from bridge import paths

spec = importlib.util.spec_from_file_location("hatch_build", ROOT / ".ci" / "hatch_build.py")
assert spec is not None and spec.loader is not None
hatch_build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hatch_build)

SOURCE = '''\
"""Docs: from vault_sync.a import b stays as written here."""
from __future__ import annotations

import os
from vault_sync.a import b
from vault_sync import settings
import bridge.c as d
import bridge.c
import vault_sync
import os.path, bridge.x as bx
from .e import f
from . import g
from ..h import i
from bridge.j import (  # why: a comment inside the statement
    k,
    l as m,
)
from vault_syncer import n
import bridgework
text = "from vault_sync.a import b"  # import bridge.c as d
café = "é"; from bridge.o import p
bridge = {"bridge": "vault_sync.a"}


def later():
    from vault_sync.q.r import s
    if s:
        import bridge.t
    return os.path.join(__name__, "bridge.cli")
'''

EXPECTED = '''\
"""Docs: from vault_sync.a import b stays as written here."""
from __future__ import annotations

import os
from mnemovault.vault_sync.a import b
from mnemovault.vault_sync import settings
import mnemovault.bridge.c as d
import mnemovault.bridge.c; from mnemovault import bridge
from mnemovault import vault_sync
import os.path; import mnemovault.bridge.x as bx
from .e import f
from . import g
from ..h import i
from mnemovault.bridge.j import (  # why: a comment inside the statement
    k,
    l as m,
)
from vault_syncer import n
import bridgework
text = "from vault_sync.a import b"  # import bridge.c as d
café = "é"; from mnemovault.bridge.o import p
bridge = {"bridge": "vault_sync.a"}


def later():
    from mnemovault.vault_sync.q.r import s
    if s:
        import mnemovault.bridge.t; from mnemovault import bridge
    return os.path.join(__name__, "bridge.cli")
'''


def test_rewrite_moves_only_the_imports_of_the_two_packages():
    out = hatch_build.rewrite(SOURCE)
    assert out == EXPECTED
    assert out.count("\n") == SOURCE.count("\n")  # tracebacks keep the repository's line numbers
    assert hatch_build.rewrite("x = 1  # nothing to do\n") == "x = 1  # nothing to do\n"


def test_rewrite_takes_any_package_names_and_prefix():
    assert (
        hatch_build.rewrite("from engine.core import run\nimport bridge\n", ("engine",), "pkg")
        == "from pkg.engine.core import run\nimport bridge\n"
    )


def test_a_module_that_does_not_parse_fails_the_build():
    with pytest.raises(SyntaxError):
        hatch_build.rewrite("from vault_sync import (\n")


def write(root, files):
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text), encoding="utf-8")


def run_isolated(path, code):
    """`code` in a Python that sees only `path`: no site-packages, no checkout, no PYTHONPATH."""
    return subprocess.run(
        [sys.executable, "-S", "-I", "-c", f"import sys; sys.path.insert(0, {str(path)!r})\n{code}"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=path,
    )


def test_the_staged_tree_imports_itself_by_the_one_name(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    write(
        src,
        {
            "vault_sync/__init__.py": "",
            "vault_sync/store/__init__.py": "",
            "vault_sync/store/rows.py": "from vault_sync.names import NAME\nROWS = [NAME]\n",
            "vault_sync/names.py": "NAME = 'engine'\n",
            "bridge/__init__.py": "",
            "bridge/app.py": "import vault_sync.store.rows\nfrom bridge import helper\nfrom .helper import twice\n"
            "def main():\n    return twice(vault_sync.store.rows.ROWS), helper.__name__\n",
            "bridge/helper.py": "def twice(x):\n    return x * 2\n",
            "bridge/table.json": "{}",
            "bridge/__pycache__/app.cpython-311.pyc": "stale",
            "bridge/ignored.txt": "left out",
        },
    )
    hatch_build.stage(src, out, skip_file=lambda rel: rel == "bridge/ignored.txt")
    staged = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert staged == [
        "mnemovault/__init__.py",
        "mnemovault/__main__.py",
        "mnemovault/bridge/__init__.py",
        "mnemovault/bridge/app.py",
        "mnemovault/bridge/helper.py",
        "mnemovault/bridge/table.json",
        "mnemovault/vault_sync/__init__.py",
        "mnemovault/vault_sync/names.py",
        "mnemovault/vault_sync/store/__init__.py",
        "mnemovault/vault_sync/store/rows.py",
    ]
    done = run_isolated(
        out,
        "from mnemovault.bridge.app import main\nprint(main())\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('bridge', 'vault_sync')))",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["(['engine', 'engine'], 'mnemovault.bridge.helper')", "[]"]
    assert run_isolated(out, "import bridge").returncode != 0  # only mnemovault is importable


def test_module_names_in_strings_follow_the_layout(tmp_path):
    # in the checkout (where the tests run) the names are the repository's
    assert paths.module("bridge.cli") == "bridge.cli" and paths.import_root() == ROOT
    # the real bridge/paths.py, staged as the wheel holds it
    hatch_build.stage(ROOT, tmp_path)
    done = run_isolated(
        tmp_path,
        "from mnemovault.bridge import paths\n"
        "print(paths.module('bridge.cli'), paths.module('vault_sync.watcher'), paths.import_root())",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["mnemovault.bridge.cli", "mnemovault.vault_sync.watcher", str(tmp_path)]
