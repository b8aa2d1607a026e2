"""`mnemovault service install|uninstall|status`: start the daemon at login, restart on failure."""

from __future__ import annotations

import os
import platform
import plistlib
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from .paths import module, vault_key

LABEL = "md.mnemovault.daemon"


@dataclass
class ServiceFile:
    platform: str
    path: Path
    content: str
    enable: list[list[str]]
    disable: list[list[str]]
    query: list[str]


def daemon_command(vault: Path) -> list[str]:
    # the console script of the running environment first: a login session's PATH may lack it
    beside = Path(sys.executable).with_name("mnemovault.exe" if os.name == "nt" else "mnemovault")
    exe = str(beside) if beside.is_file() else shutil.which("mnemovault")
    base = [exe] if exe else [sys.executable, "-m", module("bridge.cli")]
    return [*base, "daemon", "--vault", str(vault)]


def systemd_unit(vault: Path, home: Path) -> ServiceFile:
    name = f"mnemovault-{vault_key(vault)}.service"
    # systemd expands %-specifiers in these lines: a literal % is written %%
    cmd = " ".join(shlex.quote(c) for c in daemon_command(vault)).replace("%", "%%")
    content = f"""[Unit]
Description=mnemovault daemon for {str(vault).replace("%", "%%")}
After=default.target
# back off when it keeps failing: at most 5 starts in 10 minutes ([Unit] keys, not [Service])
StartLimitIntervalSec=600
StartLimitBurst=5

[Service]
Type=simple
ExecStart={cmd}
Restart=on-failure
RestartSec=5
Environment=PYTHONUNBUFFERED=1

[Install]
WantedBy=default.target
"""
    path = home / ".config" / "systemd" / "user" / name
    return ServiceFile(
        "linux",
        path,
        content,
        [["systemctl", "--user", "daemon-reload"], ["systemctl", "--user", "enable", "--now", name]],
        [["systemctl", "--user", "disable", "--now", name]],
        ["systemctl", "--user", "is-active", name],
    )


def launchd_plist(vault: Path, home: Path) -> ServiceFile:
    label = f"{LABEL}.{vault_key(vault)}"
    logs = home / "Library" / "Logs" / "mnemovault"
    content = plistlib.dumps(
        {
            "Label": label,
            "ProgramArguments": daemon_command(vault),
            "RunAtLoad": True,
            "KeepAlive": {"SuccessfulExit": False},
            "ThrottleInterval": 10,
            "StandardOutPath": str(logs / "daemon.out.log"),
            "StandardErrorPath": str(logs / "daemon.err.log"),
        }
    ).decode("utf-8")
    path = home / "Library" / "LaunchAgents" / f"{label}.plist"
    return ServiceFile(
        "macos",
        path,
        content,
        [["launchctl", "load", "-w", str(path)]],
        [["launchctl", "unload", "-w", str(path)]],
        ["launchctl", "list", label],
    )


def windows_task(vault: Path, home: Path) -> ServiceFile:
    name = f"mnemovault-{vault_key(vault)}"
    cmd = daemon_command(vault)
    # a logon trigger without a user means "any user" and needs an administrator to register
    user = os.environ.get("USERNAME") or home.name
    user = escape(f"{os.environ['USERDOMAIN']}\\{user}" if os.environ.get("USERDOMAIN") else user)
    content = f"""<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo><Description>mnemovault daemon for {escape(str(vault))}</Description></RegistrationInfo>
  <Triggers><LogonTrigger><Enabled>true</Enabled><UserId>{user}</UserId></LogonTrigger></Triggers>
  <Principals><Principal id="Author">
    <UserId>{user}</UserId><LogonType>InteractiveToken</LogonType><RunLevel>LeastPrivilege</RunLevel>
  </Principal></Principals>
  <Settings>
    <RestartOnFailure><Interval>PT1M</Interval><Count>5</Count></RestartOnFailure>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
  </Settings>
  <Actions Context="Author"><Exec>
    <Command>{escape(cmd[0])}</Command>
    <Arguments>{escape(subprocess.list2cmdline(cmd[1:]))}</Arguments>
  </Exec></Actions>
</Task>
"""
    path = home / "AppData" / "Local" / "mnemovault" / f"{name}.xml"
    return ServiceFile(
        "windows",
        path,
        content,
        [["schtasks", "/Create", "/TN", name, "/XML", str(path), "/F"]],
        [["schtasks", "/Delete", "/TN", name, "/F"]],
        ["schtasks", "/Query", "/TN", name],
    )


def service_file(vault: Path, system: str | None = None, home: Path | None = None) -> ServiceFile:
    system = (system or platform.system()).lower()
    home = home or Path.home()
    vault = vault.resolve()
    if system in ("linux", "freebsd"):
        return systemd_unit(vault, home)
    if system in ("darwin", "macos"):
        return launchd_plist(vault, home)
    if system in ("windows", "nt"):
        return windows_task(vault, home)
    raise ValueError(f"no login service for {system}")


def _run(commands: list[list[str]], failed: list[str] | None = None) -> list[str]:
    """Run each command; a line per command. `failed` collects what went wrong (the rest still run
    only while nothing failed: enabling after a failed reload would only add a second error)."""
    out = []
    for cmd in commands:
        if shutil.which(cmd[0]) is None:
            out.append(f"skipped (no {cmd[0]} here): {' '.join(cmd)}")
            continue
        done = subprocess.run(cmd, capture_output=True, text=True)
        said = (done.stderr or done.stdout).strip() or f"exit status {done.returncode}"
        out.append(f"{' '.join(cmd)}: {'ok' if done.returncode == 0 else said}")
        if done.returncode != 0 and failed is not None:
            failed.append(f"{' '.join(cmd)}: {said}")
            break
    return out


def install(sf: ServiceFile) -> tuple[list[str], str | None]:
    """Write and enable the service; (lines, None), or (lines, why) when it did not start."""
    sf.path.parent.mkdir(parents=True, exist_ok=True)
    if sf.platform == "macos":
        (sf.path.parent.parent / "Logs" / "mnemovault").mkdir(parents=True, exist_ok=True)
    sf.path.write_text(sf.content, encoding="utf-16" if sf.platform == "windows" else "utf-8")
    failed: list[str] = []
    lines = [f"wrote {sf.path}", *_run(sf.enable, failed)]
    if not failed and sf.platform == "linux" and shutil.which(sf.query[0]):
        # enabled is not started: systemd says whether the service runs
        done = subprocess.run(sf.query, capture_output=True, text=True)
        state = (done.stdout or done.stderr).strip() or f"exit status {done.returncode}"
        lines.append(f"{' '.join(sf.query)}: {state}")
        if done.returncode != 0:
            failed.append(f"the service is not running ({state})")
    if failed:
        return lines, (
            f"the login service did not start: {failed[0]}; see `journalctl --user -u {sf.path.name}` "
            "(the service file stays in place: fix the cause and run `mnemovault service install` again)"
            if sf.platform == "linux"
            else f"the login service did not start: {failed[0]}"
        )
    return lines, None


def uninstall(sf: ServiceFile) -> list[str]:
    out = _run(sf.disable)
    if sf.path.exists():
        os.unlink(sf.path)
        out.append(f"removed {sf.path}")
    else:
        out.append(f"not installed ({sf.path} does not exist)")
    return out


def status(sf: ServiceFile) -> list[str]:
    lines = [f"service file: {sf.path} ({'present' if sf.path.exists() else 'absent'})"]
    if shutil.which(sf.query[0]):
        done = subprocess.run(sf.query, capture_output=True, text=True)
        lines.append(f"{' '.join(sf.query)}: {(done.stdout or done.stderr).strip() or done.returncode}")
    return lines
