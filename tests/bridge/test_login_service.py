"""Login service files for each platform, validated with each platform's own parser."""

from __future__ import annotations

import configparser
import os
import plistlib
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import ROOT

from bridge.login_service import install, service_file, uninstall
from bridge.paths import vault_key

TASK_NS = "{http://schemas.microsoft.com/windows/2004/02/mit/task}"


def test_linux_systemd_unit_runs_the_daemon_at_login(vault, tmp_path):
    sf = service_file(vault, "linux", home=tmp_path)
    assert sf.platform == "linux"
    assert sf.path == tmp_path / ".config/systemd/user" / f"mnemovault-{vault_key(vault)}.service"
    unit = configparser.ConfigParser(interpolation=None, strict=True)
    unit.optionxform = str
    unit.read_string(sf.content)
    assert set(unit.sections()) == {"Unit", "Service", "Install"}
    assert unit["Service"]["Restart"] == "on-failure" and int(unit["Service"]["RestartSec"]) > 0
    assert "StartLimitIntervalSec" in unit["Unit"] and "StartLimitBurst" in unit["Unit"]
    assert unit["Install"]["WantedBy"] == "default.target"
    exec_start = unit["Service"]["ExecStart"]
    assert exec_start.endswith(f"daemon --vault {vault.resolve()}")
    assert Path(exec_start.split()[0]).is_file()  # an absolute program path that exists
    assert ["systemctl", "--user", "enable", "--now", sf.path.name] in sf.enable


def test_systemd_unit_quotes_odd_vault_paths(tmp_path):
    odd = tmp_path / "My Notes 100%"
    odd.mkdir()
    content = service_file(odd, "linux", home=tmp_path).content
    line = next(x for x in content.splitlines() if x.startswith("ExecStart="))
    assert line.endswith("'" + str(odd).replace("%", "%%") + "'")


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify(vault, tmp_path):
    sf = service_file(vault, "linux", home=tmp_path)
    unit = tmp_path / sf.path.name
    unit.write_text(sf.content, encoding="utf-8")
    done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    complaints = [line for line in (done.stdout + done.stderr).splitlines() if unit.name in line]
    assert done.returncode == 0 and not complaints, done.stdout + done.stderr


def test_macos_launchd_plist_runs_the_daemon_at_login(vault, tmp_path):
    sf = service_file(vault, "macos", home=tmp_path)
    label = f"md.mnemovault.daemon.{vault_key(vault)}"
    assert sf.path == tmp_path / "Library/LaunchAgents" / f"{label}.plist"
    plist = plistlib.loads(sf.content.encode("utf-8"))
    assert plist["Label"] == label
    assert plist["RunAtLoad"] is True
    assert plist["KeepAlive"]  # restart when it dies (not after a clean stop)
    assert plist["ProgramArguments"][-3:] == ["daemon", "--vault", str(vault.resolve())]
    assert plist["ThrottleInterval"] >= 10  # backoff between restarts
    assert plist["StandardErrorPath"].startswith(str(tmp_path))


def test_windows_task_xml(vault, tmp_path):
    sf = service_file(vault, "windows", home=tmp_path)
    assert sf.path.suffix == ".xml"
    root = ET.fromstring(sf.content.encode("utf-16"))  # as install() writes it
    assert root.tag == f"{TASK_NS}Task"
    assert root.find(f"{TASK_NS}Triggers/{TASK_NS}LogonTrigger/{TASK_NS}Enabled").text == "true"
    assert root.find(f"{TASK_NS}Settings/{TASK_NS}RestartOnFailure/{TASK_NS}Count").text == "5"
    exec_ = root.find(f"{TASK_NS}Actions/{TASK_NS}Exec")
    assert exec_.find(f"{TASK_NS}Arguments").text.startswith("daemon --vault ")
    assert str(vault.resolve()) in exec_.find(f"{TASK_NS}Arguments").text


def test_windows_task_escapes_the_vault_path(tmp_path):
    odd = tmp_path / "R&D <notes>"
    odd.mkdir()
    root = ET.fromstring(service_file(odd, "windows", home=tmp_path).content.encode("utf-16"))
    assert str(odd) in root.find(f"{TASK_NS}Actions/{TASK_NS}Exec/{TASK_NS}Arguments").text


def test_unknown_platform_is_refused(vault, tmp_path):
    with pytest.raises(ValueError, match="no login service"):
        service_file(vault, "plan9", home=tmp_path)


def test_install_and_uninstall_write_only_the_file(vault, tmp_path, monkeypatch):
    # no service manager on PATH: the commands are reported as skipped, the file is written
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    sf = service_file(vault, "macos", home=tmp_path)
    lines, failed = install(sf)
    assert failed is None
    assert sf.path.exists() and plistlib.loads(sf.path.read_bytes())["RunAtLoad"] is True
    assert any(line.startswith("skipped (no launchctl here)") for line in lines)
    assert (tmp_path / "Library/Logs/mnemovault").is_dir()
    lines = uninstall(sf)
    assert not sf.path.exists() and any("removed" in line for line in lines)


@pytest.mark.parametrize(
    "system,marker", [("linux", "ExecStart="), ("macos", "<key>RunAtLoad</key>"), ("windows", "<LogonTrigger>")]
)
def test_cli_service_install_dry_run_prints_the_file(vault, tmp_path, system, marker):
    env = {**os.environ, "HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bridge.cli",
            "service",
            "install",
            "--dry-run",
            "--platform",
            system,
            "--vault",
            str(vault),
        ],
        cwd=str(ROOT),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert marker in done.stdout and str(vault.resolve()) in done.stdout
    first = done.stdout.splitlines()[0]
    assert first.startswith("# ") and vault_key(vault) in first
    assert first[2:].startswith(str(tmp_path / "home"))
    assert not (tmp_path / "home").exists()  # a dry run writes nothing


@pytest.mark.parametrize("broken", ["enable", "is-active"])
def test_cli_service_install_fails_when_the_service_does_not_start(vault, tmp_path, broken):
    """A systemctl on PATH that fails (enable refused, or the unit enabled but not running):
    install exits non-zero and says why."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "systemctl"
    fake.write_text(
        "#!/bin/sh\n"
        'echo "$@" >> "$(dirname "$0")/calls"\n'
        f'case "$*" in *{broken}*) echo "Job for mnemovault failed: exit-code" >&2; echo failed; exit 3;; esac\n'
        "exit 0\n",
        encoding="utf-8",
    )
    fake.chmod(0o755)
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "PYTHONPATH": str(ROOT),
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
    }
    done = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "service", "install", "--platform", "linux", "--vault", str(vault)],
        cwd=str(ROOT),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0, done.stdout
    assert "did not start" in done.stderr and "failed" in done.stderr
    assert "enable --now" in (bin_dir / "calls").read_text(encoding="utf-8")
