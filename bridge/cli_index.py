"""Commands over the index itself: sync, sweep, status, links, watch, and the demo vault."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from . import output
from . import schemas as S
from .cli_app import JsonOpt, VaultOpt, app, described, emit, run


@app.command()
def sync(
    vault: Optional[Path] = VaultOpt,
    rebuild: bool = typer.Option(False, "--rebuild", help="Rebuild the index from scratch."),
    as_json: bool = JsonOpt,
) -> None:
    """Bring the index up to date with the vault."""

    def go() -> None:
        from .context import open_service

        with open_service(vault, initial_sync=False) as svc:
            with output.progress("indexing", enabled=not as_json) as bar:
                report = svc.sync(rebuild=rebuild, progress=bar, check=True)
            emit(report, as_json, output.render_sync)

    run(go)


@app.command()
def sweep(
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
    full: bool = typer.Option(False, "--full", help=described(S.SweepArgs, "full")),
) -> None:
    """Recompute decay scores in STM; write back what is due (used, new state, or older than score_refresh_hours)."""
    from .operations import call

    # through the daemon when one serves the vault: it knows which note is open in the editor
    run(lambda: emit(call(vault, "sweep", full=full), as_json, output.render_sweep))


@app.command()
def status(vault: Optional[Path] = VaultOpt, as_json: bool = JsonOpt) -> None:
    """Counts by kind and status, problems, conflicts, dangling links, last sync."""

    from .operations import call

    run(lambda: emit(call(vault, "status"), as_json, output.render_status))


@app.command()
def links(
    vault: Optional[Path] = VaultOpt,
    dangling: bool = typer.Option(
        False, "--dangling", help="List the links that resolve to nothing (the only listing for now)."
    ),
    limit: int = typer.Option(100, "--limit", min=1, max=1000, help=described(S.DanglingArgs, "limit")),
    offset: int = typer.Option(0, "--offset", min=0, help=described(S.DanglingArgs, "offset")),
    as_json: bool = JsonOpt,
) -> None:
    """Links in the vault: `--dangling` lists every link that resolves to nothing, a page at a time."""
    from .operations import call

    if not dangling:
        typer.echo("error: say which links: --dangling", err=True)
        raise typer.Exit(2)
    run(lambda: emit(call(vault, "dangling", limit=limit, offset=offset), as_json, output.render_dangling))


@app.command()
def watch(vault: Optional[Path] = VaultOpt) -> None:
    """Keep the index current while files change (Ctrl-C to stop)."""
    from .watch import watch_forever

    run(lambda: watch_forever(vault))


@app.command()
def demo(
    target: Path = typer.Argument(Path(".demo-vault"), help="Where to put the working copy."),
    fresh: bool = typer.Option(True, help="Replace an existing copy."),
    run_daemon: bool = typer.Option(True, "--daemon/--no-daemon", help="Start the daemon on the copy afterwards."),
) -> None:
    """Copy sample-vault/ with its dates shifted to today, index it and sweep it."""
    from .demo import make_demo

    run(lambda: make_demo(target, fresh, run_daemon))
