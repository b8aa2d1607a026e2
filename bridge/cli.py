"""The `mnemovault` command: a thin shell over MemoryService (or the running daemon)."""

from __future__ import annotations

if __name__ == "__main__":
    # `python -m bridge.cli`: dispatch before the imports below (the MCP proxy needs none of
    # them); everything else runs on the app of the imported `bridge.cli`
    from bridge.entry import main as _entry_main

    _entry_main()
    raise SystemExit(0)

import json
import sys
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from vault_sync.errors import MnemovaultError

from . import output
from .errors import exit_code

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, help="mnemovault: memories that live in your Obsidian vault.")

VaultOpt = typer.Option(None, "--vault", "-v", help="The vault folder (else MNEMOVAULT_VAULT or the config).")
JsonOpt = typer.Option(False, "--json", help="Print JSON instead of text.")


def _print_version(value: bool) -> None:
    if value:
        from .version import version

        typer.echo(f"mnemovault {version()}")
        raise typer.Exit()


@app.callback()
def _options(show_version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit.")):
    pass


def run(fn: Callable[[], Any]) -> Any:
    """Turn engine errors into a one-line message and an exit code."""
    try:
        return fn()
    except MnemovaultError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(exit_code(exc)) from None
    except OSError as exc:  # a folder we cannot create, a disk that is full: say so in one line
        typer.echo(f"error: {exc.strerror or exc}{f': {exc.filename}' if exc.filename else ''}", err=True)
        raise typer.Exit(1) from None


def emit(data: Any, as_json: bool, render: Callable[[Any], None]) -> None:
    if as_json:
        typer.echo(json.dumps(data, indent=2, default=str, ensure_ascii=False))
    else:
        render(data)


@app.command()
def sync(vault: Optional[Path] = VaultOpt, rebuild: bool = typer.Option(False, "--rebuild", help="Rebuild the index from scratch."), as_json: bool = JsonOpt):
    """Bring the index up to date with the vault."""

    def go():
        from .context import open_service

        with open_service(vault, initial_sync=False) as svc:
            with output.progress("indexing", enabled=not as_json) as bar:
                report = svc.sync(rebuild=rebuild, progress=bar)
            emit(report, as_json, output.render_sync)

    run(go)


@app.command()
def sweep(
    vault: Optional[Path] = VaultOpt,
    as_json: bool = JsonOpt,
    full: bool = typer.Option(False, "--full", help="Refresh every written score that moved now, not once per score_refresh_hours."),
):
    """Recompute decay scores in STM; write back what is due (used, new state, or older than score_refresh_hours)."""
    from .operations import call

    # through the daemon when one serves the vault: it knows which note is open in the editor
    run(lambda: emit(call(vault, "sweep", full=full), as_json, output.render_sweep))


@app.command()
def status(vault: Optional[Path] = VaultOpt, as_json: bool = JsonOpt):
    """Counts by kind and status, problems, conflicts, dangling links, last sync."""

    from .operations import call

    run(lambda: emit(call(vault, "status"), as_json, output.render_status))


@app.command()
def links(
    vault: Optional[Path] = VaultOpt,
    dangling: bool = typer.Option(False, "--dangling", help="List the links that resolve to nothing (the only listing for now)."),
    limit: int = typer.Option(100, "--limit", min=1, max=1000, help="Links per page."),
    offset: int = typer.Option(0, "--offset", min=0, help="Skip this many links (the page's start)."),
    as_json: bool = JsonOpt,
):
    """Links in the vault: `--dangling` lists every link that resolves to nothing, a page at a time."""
    from .operations import call

    if not dangling:
        typer.echo("error: say which links: --dangling", err=True)
        raise typer.Exit(2)
    run(lambda: emit(call(vault, "dangling", limit=limit, offset=offset), as_json, output.render_dangling))


@app.command()
def watch(vault: Optional[Path] = VaultOpt):
    """Keep the index current while files change (Ctrl-C to stop)."""
    from .watch import watch_forever

    run(lambda: watch_forever(vault))


@app.command()
def demo(
    target: Path = typer.Argument(Path(".demo-vault"), help="Where to put the working copy."),
    fresh: bool = typer.Option(True, help="Replace an existing copy."),
    run_daemon: bool = typer.Option(True, "--daemon/--no-daemon", help="Start the daemon on the copy afterwards."),
):
    """Copy sample-vault/ with its dates shifted to today, index it and sweep it."""
    from .demo import make_demo

    run(lambda: make_demo(target, fresh, run_daemon))


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


from . import cli_memory  # noqa: E402,F401  registers the lifecycle and search commands
from . import cli_admin  # noqa: E402,F401  registers daemon, mcp, service, plugin, init
from . import cli_transfer  # noqa: E402,F401  registers import and export
