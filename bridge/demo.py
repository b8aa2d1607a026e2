"""`mnemovault demo`: a working copy of sample-vault/ that looks right today."""

from __future__ import annotations

import shutil
from pathlib import Path

import typer

from vault_sync.dates import utc_now
from vault_sync.errors import InvalidInput
from vault_sync.sample import shifted_copy

from .context import open_service
from .output import console, render_status, render_sweep

SAMPLE = Path(__file__).resolve().parent.parent / "sample-vault"


def make_demo(target: Path, fresh: bool, run_daemon: bool) -> None:
    if not SAMPLE.is_dir():
        raise InvalidInput(f"sample vault not found at {SAMPLE}")
    target = target.expanduser().resolve()
    if target.exists():
        if not fresh:
            raise InvalidInput(f"{target} exists; pass --fresh to replace it")
        if not (target / ".mnemovault" / "sample.json").is_file():
            raise InvalidInput(f"{target} exists and is not a demo copy; refusing to replace it")
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
