"""The command reference at the end of docs/cli.md, generated from the CLI's own definitions.

    python tests/cli_reference.py --write    # rewrite docs/cli.md below its marker

tests/project/test_cli_docs.py fails when the file differs from what this prints.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "cli.md"
MARKER = "<!-- generated from the CLI by `python tests/cli_reference.py --write`: do not edit below -->\n"


def root_command() -> Any:
    import typer.main

    from bridge.cli import app

    return typer.main.get_command(app)


def walk(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command and sub-command, depth first, in the order the CLI registers them."""
    for name, sub in getattr(command, "commands", {}).items():
        yield path + (name,), sub
        yield from walk(sub, path + (name,))


def _one_line(text: str | None) -> str:
    return " ".join((text or "").replace("\b", "").split())


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _default(param: Any) -> str:
    value = param.default
    if value is None or value is False or callable(value) or param.required:
        return ""
    if value is True:
        return "on"
    return f"`{value}`"


def section(path: tuple[str, ...], command: Any) -> str:
    name = " ".join(path)
    lines = [f"### `mnemovault {name}`", "", _one_line(command.help), ""]
    if getattr(command, "commands", None):
        subs = ", ".join(f"`{sub}`" for sub in command.commands)
        return "\n".join(lines + [f"Sub-commands: {subs}.", ""])
    args = [p for p in command.params if p.param_type_name == "argument"]
    options = [p for p in command.params if p.param_type_name == "option" and not p.hidden]
    usage = " ".join(
        [f"mnemovault {name}"]
        + [("[" + a.name.upper() + "]") if not a.required else a.name.upper() for a in args]
        + (["[OPTIONS]"] if options else [])
    )
    lines += [f"    {usage}", ""]
    if options:
        lines += ["| option | default | meaning |", "| --- | --- | --- |"]
        for p in options:
            flags = " / ".join(f"`{flag}`" for flag in p.opts + p.secondary_opts)
            lines.append(f"| {flags} | {_default(p)} | {_cell(_one_line(p.help))} |")
        lines.append("")
    return "\n".join(lines)


def reference() -> str:
    return MARKER + "\n" + "\n".join(section(path, cmd) for path, cmd in walk(root_command()))


def current_doc() -> str:
    return DOC.read_text(encoding="utf-8")


def written(doc: str) -> str:
    """The doc with its generated part replaced by the current reference."""
    head = doc.split(MARKER, 1)[0]
    return head + reference()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if sys.argv[1:] == ["--write"]:
        DOC.write_text(written(current_doc()), encoding="utf-8")
    else:
        sys.stdout.write(reference())
