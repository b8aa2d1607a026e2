"""The wheel's one import package. The repository keeps the top-level folders bridge/ and
vault_sync/, whose modules import each other by those absolute names; the installed wheel
holds them as mnemovault.bridge and mnemovault.vault_sync, so it claims no name another
distribution could (docs/architecture.md, "Import packages").

The build hook (hatchling loads it for the wheel target: pyproject.toml) stages a copy of
both folders with every absolute import of them rewritten (`from vault_sync.x import y` ->
`from mnemovault.vault_sync.x import y`), adds mnemovault/__init__.py and __main__.py, and
has hatchling ship that tree. Only import statements change: found with the ast module and
edited at their tokens, so strings, comments and every other line stay byte for byte (line
numbers in tracebacks match the repository's). Module names the code needs as strings are
computed at run time (bridge.paths.module). An editable install gets only the two small
files, importing the checkout's folders by their own names."""

from __future__ import annotations

import ast
import io
import os
import shutil
import tempfile
import tokenize
from pathlib import Path
from typing import Any

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # the tests load the rewriter alone, without hatchling
    BuildHookInterface = object  # type: ignore[assignment,misc]

PACKAGE = "mnemovault"
FOLDERS = ("bridge", "vault_sync")
INIT = (
    '"""mnemovault, a memory system inside an Obsidian vault. Installed: the engine .vault_sync, the front ends '
    '.bridge."""\n'
)
MAIN = '''"""`python -m mnemovault` and the `mnemovault` command."""

from bridge.entry import main

if __name__ == "__main__":
    main()
'''


def rewrite(source: str, packages: tuple[str, ...] = FOLDERS, prefix: str = PACKAGE) -> str:
    """`source` with every absolute import of `packages` (and their submodules) moved under
    `prefix`. Relative imports, strings, comments and all other code are left as they are."""
    tree = ast.parse(source)
    lines = io.StringIO(source, newline="").readlines()
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(lineno: int, col_bytes: int) -> int:  # ast columns count UTF-8 bytes
        line = lines[lineno - 1]
        return starts[lineno - 1] + len(line.encode("utf-8")[:col_bytes].decode("utf-8"))

    tokens = [
        (starts[t.start[0] - 1] + t.start[1], t.string)
        for t in tokenize.generate_tokens(io.StringIO(source, newline="").readline)
        if t.type == tokenize.NAME
    ]
    at_offset = {at: i for i, (at, _) in enumerate(tokens)}
    ours = set(packages)
    edits: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] in ours:
            # `from a.b import c`: only the first name after `from` changes; parentheses,
            # line breaks and comments inside the statement stay
            top = node.module.split(".")[0]
            i = at_offset[offset(node.lineno, node.col_offset)]  # the `from` keyword
            at, name = tokens[i + 1]
            if (tokens[i][1], name) != ("from", top):
                raise ValueError(f"line {node.lineno}: expected `from {top}`, found `{tokens[i][1]} {name}`")
            edits.append((at, at + len(top), f"{prefix}.{top}"))
        elif isinstance(node, ast.Import) and any(a.name.split(".")[0] in ours for a in node.names):
            assert node.end_lineno is not None and node.end_col_offset is not None
            parts = []
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top not in ours:
                    parts.append(f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else ""))
                elif alias.asname:
                    parts.append(f"import {prefix}.{alias.name} as {alias.asname}")
                elif "." in alias.name:  # `import a.b` binds `a`: import the module, then bind the package
                    parts.append(f"import {prefix}.{alias.name}; from {prefix} import {top}")
                else:
                    parts.append(f"from {prefix} import {top}")
            edits.append(
                (offset(node.lineno, node.col_offset), offset(node.end_lineno, node.end_col_offset), "; ".join(parts))
            )
    out = source
    for begin, end, text in sorted(edits, reverse=True):
        out = out[:begin] + text + out[end:]
    ast.parse(out)  # a rewrite that broke the syntax fails the build here, not at import time
    return out


def stage(root: Path, target: Path, skip_dir: Any = None, skip_file: Any = None) -> None:
    """Write target/mnemovault/ from root's folders: .py files rewritten, other files copied.
    `skip_dir(name, relative_parent)` and `skip_file(relative_path)` leave out what the
    build would (ignored by git, caches)."""
    package = target / PACKAGE
    for folder in FOLDERS:
        for here, dirs, files in os.walk(root / folder):
            rel = Path(here).relative_to(root).as_posix()
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not (skip_dir and skip_dir(d, rel)))
            for name in sorted(files):
                path = f"{rel}/{name}"
                if name.endswith((".pyc", ".pyo")) or (skip_file and skip_file(path)):
                    continue
                out = package / path
                out.parent.mkdir(parents=True, exist_ok=True)
                if name.endswith((".py", ".pyi")):
                    out.write_text(rewrite((root / path).read_text(encoding="utf-8")), encoding="utf-8")
                else:
                    shutil.copy2(root / path, out)
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(INIT, encoding="utf-8")
    (package / "__main__.py").write_text(rewrite(MAIN), encoding="utf-8")


class NamespaceHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self.staging = Path(tempfile.mkdtemp(prefix="mnemovault-build-"))
        if version == "editable":
            # the checkout is on sys.path (dev-mode-dirs): the command's module imports it
            package = self.staging / PACKAGE
            package.mkdir()
            (package / "__init__.py").write_text(INIT, encoding="utf-8")
            (package / "__main__.py").write_text(MAIN, encoding="utf-8")
        else:
            config = self.build_config
            stage(Path(self.root), self.staging, config.directory_is_excluded, config.path_is_excluded)
        build_data["force_include"][str(self.staging / PACKAGE)] = PACKAGE

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)
