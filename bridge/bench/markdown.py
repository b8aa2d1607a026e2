"""A bench result as a dated Markdown table, for docs/benchmarks.md.

    mnemovault bench --notes 2000 --quick --json > bench.json
    python -m bridge.bench.markdown bench.json

The rows are the bench's own table (report.rows); the lines above them say when the run was
measured, on what machine, and the command that measured it, so a figure can be re-measured.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..paths import module
from .report import rows


def command_of(result: dict[str, Any]) -> str:
    """The `mnemovault bench` command line that produces a result like this one."""
    vault = result.get("vault", {})
    words = ["mnemovault", "bench"]
    if "source" in vault:
        words += ["--vault", "DIR"]  # a person's vault: its path is not shown in a document
    else:
        words += ["--notes", str(vault.get("generated", vault.get("notes")))]
    if result.get("quick"):
        words.append("--quick")
    return " ".join(words + ["--json"])


def heading(result: dict[str, Any]) -> str:
    machine = result.get("machine", {})
    measured = result.get("measured")
    when = measured[:10] if measured else "at an unrecorded date"
    where = f"{machine.get('cpus', '?')} CPUs, Python {machine.get('python', '?')}"
    if machine.get("load") is not None:
        where += f", load average {machine['load']:.1f} at the start"
    renderer = f"python -m {module('bridge.bench.markdown')}"
    return f"Measured {when} ({where}) by `{command_of(result)}`, rendered by `{renderer}`:"


def _cell(text: str) -> str:
    # a row indented under the one before it (a detail of that measure) keeps the link visibly
    return ("↳ " if text.startswith("  ") else "") + text.replace("|", "\\|").strip()


def table(result: dict[str, Any]) -> str:
    lines = [heading(result), "", "| measure | value | target |", "| --- | ---: | --- |"]
    lines += [f"| {_cell(name)} | {_cell(value)} | {_cell(target)} |" for name, value, target in rows(result)]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(
            f"usage: python -m {module('bridge.bench.markdown')} RESULT.json (from `mnemovault bench --json`)",
            file=sys.stderr,
        )
        return 2
    try:
        result = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"error: {argv[0]}: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
