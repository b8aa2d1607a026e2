"""`mnemovault demo`: a working copy of sample-vault/ that looks right today."""

from __future__ import annotations

import shutil
from pathlib import Path

import typer

from vault_sync.dates import utc_now
from vault_sync.errors import InvalidInput
from vault_sync.service import shifted_copy

from .context import open_service
from .output import console, render_status, render_sweep
from .resources import sample_vault

SAMPLE = sample_vault()  # package data of an installed copy, else sample-vault/ of the checkout


# the engine's own additions to a demo copy (besides moving the sample's notes between folders)
_ENGINE_FILES = {"LTM Index.md"}
_SETTINGS_DIRS = {".mnemovault", ".obsidian"}


def foreign_files(target: Path) -> list[str]:
    """Files in an old demo copy that neither the sample nor the engine put there: a person's
    notes (and anything in .trash that is not a demo memory). Replacing the copy would lose them."""
    ours = {p.name for p in SAMPLE.rglob("*") if p.is_file()} | _ENGINE_FILES
    out = []
    for path in sorted(target.rglob("*")):
        rel = path.relative_to(target)
        if rel.parts[0] in _SETTINGS_DIRS or not path.is_file():
            continue
        if path.name not in ours:
            out.append(rel.as_posix())
    return out


def make_demo(target: Path, fresh: bool, run_daemon: bool) -> None:
    if not SAMPLE.is_dir():
        raise InvalidInput(f"sample vault not found at {SAMPLE}")
    target = target.expanduser().resolve()
    if target.exists():
        if not fresh:
            raise InvalidInput(f"{target} exists; pass --fresh to replace it")
        if not (target / ".mnemovault" / "sample.json").is_file():
            raise InvalidInput(f"{target} exists and is not a demo copy; refusing to replace it")
        added = foreign_files(target)
        if added:
            shown = ", ".join(added[:3]) + (f" and {len(added) - 3} more" if len(added) > 3 else "")
            raise InvalidInput(
                f"{target} is an old demo copy, but it holds {len(added)} file(s) the demo did not create "
                f"({shown}); not replacing it. Move them out first, or give another folder."
            )
        shutil.rmtree(target)
    shifted_copy(SAMPLE, target, utc_now())
    console.print(f"demo vault: {target}")
    with open_service(target, quiet_seconds=0) as svc:
        render_sweep(svc.sweep())
        render_status(svc.status())
    if run_daemon:
        from .watch import run_daemon as start

        start(target)
    else:
        typer.echo(f"open it in Obsidian, or run: mnemovault daemon --vault {target}")
