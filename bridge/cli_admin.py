"""CLI commands for the daemon, MCP, login service, plugin and config (registered on bridge.cli.app)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from vault_sync.errors import InvalidInput, WrongState

from . import output
from .cli_app import VaultOpt, app, run
from .paths import module

if TYPE_CHECKING:
    from .login_service import ServiceFile

service_app = typer.Typer(help="Start the daemon at login (systemd, launchd, Task Scheduler).", no_args_is_help=True)
plugin_app = typer.Typer(help="The Obsidian plugin.", no_args_is_help=True)
app.add_typer(service_app, name="service")
app.add_typer(plugin_app, name="plugin")


@app.command()
def daemon(
    vault: Optional[Path] = VaultOpt,
    port: Optional[int] = typer.Option(
        None, "--port", min=1, max=65535, help="Bridge port 1-65535 (default: a free one)."
    ),
    verbose: bool = typer.Option(
        False, "--verbose", help="Log at debug level (the log file the daemon names at start)."
    ),
    idle_exit: float = typer.Option(
        0.0, "--idle-exit", min=0, help="Stop after this many seconds with no client (0: never)."
    ),
    info: bool = typer.Option(
        False, "--info", help="Print the running daemon's MCP URL, port, token and bridge file as JSON, then exit."
    ),
    status: bool = typer.Option(
        False, "--status", help="Say whether a daemon serves the vault (pid, port, since when); exit 4 if none."
    ),
    stop: bool = typer.Option(
        False, "--stop", help="Stop the daemon serving the vault (one a relay started too), waiting until it is gone."
    ),
) -> None:
    """Watch the vault, keep scores current, serve the plugin bridge and MCP over HTTP."""
    if info:
        run(lambda: _daemon_info(vault))
        return
    if status:
        run(lambda: _daemon_status(vault))
        return
    if stop:
        run(lambda: _daemon_stop(vault))
        return
    from .server import serve

    run(lambda: serve(vault, port, verbose, idle_exit))


def _running(vault: Optional[Path]) -> tuple[Path, dict[str, Any] | None]:
    from vault_sync.settings import load_settings

    from .daemon_start import live_bridge

    root = load_settings(vault=vault).vault_path()
    return root, live_bridge(root)


def _daemon_status(vault: Optional[Path]) -> None:
    from vault_sync.errors import NotFound

    root, found = _running(vault)
    if found is None:
        raise NotFound(f"no mnemovault daemon serves {root}")
    typer.echo(f"running: pid {found['pid']}, port {found['port']}, since {found.get('started', '?')}, vault {root}")


def _daemon_stop(vault: Optional[Path], timeout: float = 30.0) -> None:
    """SIGTERM to the daemon named by the vault's bridge file (it finishes the write in
    progress and removes the file), then wait until the process is gone."""
    import os
    import signal
    import time

    from .daemon_start import pid_alive
    from .vault_lock import holder

    root, found = _running(vault)
    if found is None:  # none serves yet; one still starting holds the vault's lock already
        found = holder(root)
    if not found:  # or has not even taken the lock (a relay just started it)
        found = _starting_daemon(root)
    if not found or not isinstance(found.get("pid"), int) or not pid_alive(found["pid"]):
        typer.echo(f"no mnemovault daemon serves {root}: nothing to stop")
        return
    pid = int(found["pid"])
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists() and b"daemon" not in cmdline.read_bytes():  # a reused pid is not ours to stop
        raise WrongState(f"pid {pid} named by the bridge file is not a mnemovault daemon; not stopping it")
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while pid_alive(pid) and not _zombie(pid):
        if time.monotonic() > deadline:
            raise WrongState(f"the daemon (pid {pid}) did not stop within {timeout:.0f} s")
        time.sleep(0.1)
    typer.echo(f"stopped the mnemovault daemon (pid {pid}) serving {root}")


def _starting_daemon(root: Path) -> dict[str, Any] | None:
    """A `daemon --vault ROOT` process of this user that is still starting (Linux: /proc)."""
    import os

    proc = Path("/proc")
    if not proc.is_dir():
        return None
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if entry.stat().st_uid != os.getuid():
                continue
            argv = [a.decode("utf-8", "replace") for a in (entry / "cmdline").read_bytes().split(b"\0")]
        except OSError:
            continue
        if "daemon" in argv and "--vault" in argv and not {"--stop", "--status", "--info"} & set(argv):
            named = argv[argv.index("--vault") + 1] if argv.index("--vault") + 1 < len(argv) else ""
            if named and Path(named).expanduser().resolve() == root:
                return {"pid": int(entry.name)}
    return None


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _daemon_info(vault: Optional[Path]) -> None:
    """What an HTTP MCP client needs: the port changes at every start, the token does not."""
    import json

    from vault_sync.errors import NotFound
    from vault_sync.settings import load_settings

    from .daemon_start import live_bridge
    from .paths import bridge_file

    root = load_settings(vault=vault).vault_path()
    found = live_bridge(root)
    if found is None:
        raise NotFound(f"no mnemovault daemon serves {root} (start one: mnemovault daemon --vault {root})")
    port = found["port"]
    print(
        json.dumps(
            {
                "mcp_url": f"http://127.0.0.1:{port}/mcp",
                "port": port,
                "token": found["token"],
                "pid": found["pid"],
                "vault": found.get("vault"),
                "bridge_file": str(bridge_file(root)),
            },
            indent=2,
        )
    )


@app.command()
def mcp(
    vault: Optional[Path] = VaultOpt,
    in_process: bool = typer.Option(
        False, "--in-process", help="Open the engine in this process instead of relaying to the daemon."
    ),
    project: Optional[str] = typer.Option(
        None,
        "--project",
        help="This session's project, whatever the client's roots say (\"\" for shared only; docs/projects.md).",
    ),
) -> None:
    """Serve MCP over stdio, for Claude Desktop, Claude Code and other MCP clients.

    A light relay to the vault's daemon, which it starts in the background if none runs."""
    from .mcp_target import proxy_vault

    target = None if in_process else proxy_vault(["mcp", "--vault", str(vault)] if vault else ["mcp"])
    if target is not None:  # reached through `bridge.cli:main`; `bridge.entry` gets here sooner
        from .mcp_proxy import run_proxy

        run_proxy(target, project)
        return
    from .mcp_stdio import run_stdio

    def go() -> None:
        from vault_sync.settings import load_settings

        from .paths import not_a_vault

        root = load_settings(vault=vault).vault_path()
        problem = not_a_vault(root)
        if problem:
            raise InvalidInput(problem)
        from .server import hold_vault

        # one engine per vault: beside a daemon, this one's watcher would index the same notes
        lock = hold_vault(root, None, "; `mnemovault mcp` without --in-process relays to it")
        try:
            run_stdio(vault, project)
        finally:
            lock.release()

    run(go)


@app.command()
def init(vault: Path = typer.Argument(..., help="The vault folder.")) -> None:
    """Create STM/, LTM/, Archive/ and .mnemovault/config.toml in a vault."""
    from vault_sync.service import init_vault
    from vault_sync.settings import load_settings

    def go() -> None:
        target = vault.expanduser()
        if not target.exists() and not target.is_symlink():
            target.mkdir(parents=True)  # `init ~/Notes` on a new machine: the vault starts here
        root = init_vault(load_settings(vault=target))
        output.console.print(f"ready: {root} (next: mnemovault daemon --vault {root})")

    run(go)


def _service_file(vault: Optional[Path], system: Optional[str]) -> ServiceFile:
    from vault_sync.settings import load_settings

    from .login_service import service_file

    root = load_settings(vault=vault).vault_path()
    try:
        return service_file(root, system)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from None


@service_app.command("install")
def service_install(
    vault: Optional[Path] = VaultOpt,
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the file only."),
    system: Optional[str] = typer.Option(None, "--platform", help="linux | macos | windows (default: this one)"),
) -> None:
    """Write and enable the login service for this vault; fails, saying why, when the service does not start."""
    from .login_service import install

    def go() -> None:
        sf = _service_file(vault, system)
        if dry_run:
            typer.echo(f"# {sf.path}\n{sf.content}")
            return
        lines, failed = install(sf)
        for line in lines:
            output.console.print(line)
        if failed:
            raise WrongState(failed)

    run(go)


@service_app.command("uninstall")
def service_uninstall(
    vault: Optional[Path] = VaultOpt,
    system: Optional[str] = typer.Option(None, "--platform", help="linux | macos | windows (default: this one)"),
) -> None:
    """Disable and remove the login service."""
    from .login_service import uninstall

    run(lambda: [output.console.print(line) for line in uninstall(_service_file(vault, system))])


@service_app.command("status")
def service_status(
    vault: Optional[Path] = VaultOpt,
    system: Optional[str] = typer.Option(None, "--platform", help="linux | macos | windows (default: this one)"),
) -> None:
    """Is the login service installed and running?"""
    from .login_service import status

    run(lambda: [output.console.print(line) for line in status(_service_file(vault, system))])


@plugin_app.command("install")
def plugin_install(vault: Optional[Path] = VaultOpt) -> None:
    """Build the plugin if needed and copy it into the vault's .obsidian/plugins/."""
    from .plugin_install import install_plugin

    run(
        lambda: output.console.print(
            f"installed into {install_plugin(vault)}; enable it in Obsidian's community plugins"
        )
    )


@app.command()
def bench(
    notes: int = typer.Option(10000, "--notes", help="Generate a vault of this many notes."),
    vault: Optional[Path] = typer.Option(None, "--vault", help="Measure a temporary copy of this vault instead."),
    quick: bool = typer.Option(False, "--quick", help="Skip embeddings (the model)."),
    as_json: bool = typer.Option(
        False, "--json", help=f"Print the results as JSON (python -m {module('bridge.bench.markdown')} renders it)."
    ),
    locomo: Optional[Path] = typer.Option(
        None, "--locomo", help="Measure recall on LoCoMo conversations (*.json) in this folder instead."
    ),
    cache: Optional[Path] = typer.Option(
        None, "--cache", help="Where --locomo keeps turn vectors between runs (default ~/.cache/mnemovault/locomo)."
    ),
) -> None:
    """Measure indexing, live sync, search, sweep and memory on a generated vault (or a copy of yours)."""
    import json as _json
    import sys as _sys

    from .bench.measure import run_bench
    from .bench.report import render

    def progress(msg: str) -> None:
        print(f"bench: {msg}", file=_sys.stderr, flush=True)

    if locomo is not None:
        from .bench.locomo import DEFAULT_CACHE, run_locomo
        from .bench.locomo import render as render_locomo

        def go_locomo() -> None:
            result = run_locomo(
                locomo, embeddings=not quick, cache_dir=cache or DEFAULT_CACHE, progress=progress, batch_turns=600
            )
            typer.echo(_json.dumps(result, indent=2, default=str)) if as_json else render_locomo(result, typer.echo)

        run(go_locomo)
        return

    def go() -> None:
        result = run_bench(None if vault else notes, vault, quick, progress)
        if as_json:
            typer.echo(_json.dumps(result, indent=2, default=str))
        else:
            render(result)

    run(go)
