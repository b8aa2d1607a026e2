"""Two real Syncthing instances on loopback replicating one folder between two vault copies.

Discovery, relays, NAT and usage reporting off; each instance listens on 127.0.0.1 only. The
shared folder is added through Syncthing's REST API on top of its own folder defaults (a folder
written into config.xml without them gets maxConflicts 0 and silently drops the losing edit).
"""

from __future__ import annotations

import json
import secrets
import shutil
import socket
import subprocess
import time
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

FOLDER = "vault"
BINARY = shutil.which("syncthing")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Instance:
    def __init__(self, home: Path, vault: Path):
        self.home, self.vault = home, vault
        self.gui, self.listen = _free_port(), _free_port()
        self.key = secrets.token_hex(16)
        out = subprocess.run(
            [BINARY, "generate", f"--home={home}", "--no-default-folder"], capture_output=True, text=True, check=True
        )
        self.device_id = next(
            line.split("Device ID:", 1)[1].strip()
            for line in (out.stdout + out.stderr).splitlines()
            if "Device ID:" in line
        )
        self._quiet_options()
        self.proc: subprocess.Popen[bytes] | None = None

    def _quiet_options(self) -> None:
        path = self.home / "config.xml"
        tree = ET.parse(path)
        options = tree.getroot().find("options")
        assert options is not None
        for name in ("listenAddress",):
            for el in options.findall(name):
                options.remove(el)
        ET.SubElement(options, "listenAddress").text = f"tcp://127.0.0.1:{self.listen}"
        for name, value in {
            "globalAnnounceEnabled": "false",
            "localAnnounceEnabled": "false",
            "relaysEnabled": "false",
            "natEnabled": "false",
            "urAccepted": "-1",
            "autoUpgradeIntervalH": "0",
            "startBrowser": "false",
            "crashReportingEnabled": "false",
        }.items():
            el = options.find(name)
            if el is None:
                el = ET.SubElement(options, name)
            el.text = value
        tree.write(path)

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                BINARY,
                "serve",
                f"--home={self.home}",
                "--no-browser",
                "--no-restart",
                "--no-upgrade",
                "--no-default-folder",
                f"--gui-address=http://127.0.0.1:{self.gui}",
                f"--gui-apikey={self.key}",
                f"--logfile={self.home / 'syncthing.log'}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={"PATH": "/usr/bin:/bin", "HOME": str(self.home), "STNOUPGRADE": "1"},
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                self.get("/rest/system/ping")
                return
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError(f"syncthing did not start; see {self.home / 'syncthing.log'}") from None
                time.sleep(0.2)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.gui}{path}", data=data, method=method, headers={"X-API-Key": self.key}
        )
        if data is not None:
            req.add_header("Content-Type", "application/json")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, never a proxy
        with opener.open(req, timeout=30) as resp:
            raw = resp.read()
        return json.loads(raw) if raw.strip() else None

    def get(self, path: str) -> Any:
        return self.call("GET", path)

    def share_with(self, other: "Instance") -> None:
        device = self.get("/rest/config/defaults/device")
        device.update(deviceID=other.device_id, name=other.home.name, addresses=[f"tcp://127.0.0.1:{other.listen}"])
        self.call("POST", "/rest/config/devices", device)
        folder = self.get("/rest/config/defaults/folder")  # Syncthing's own defaults (maxConflicts...)
        folder.update(
            id=FOLDER,
            label=FOLDER,
            path=str(self.vault),
            type="sendreceive",
            rescanIntervalS=3600,
            fsWatcherEnabled=False,  # scans are asked for, so a test knows when a change was seen
            devices=[{"deviceID": self.device_id}, {"deviceID": other.device_id}],
        )
        self.call("POST", "/rest/config/folders", folder)

    def scan(self) -> None:
        self.call("POST", f"/rest/db/scan?folder={FOLDER}")

    def status(self) -> dict[str, Any]:
        return dict(self.get(f"/rest/db/status?folder={FOLDER}"))

    def completion(self, other: "Instance") -> dict[str, Any]:
        return dict(self.get(f"/rest/db/completion?folder={FOLDER}&device={other.device_id}"))

    def connected(self, other: "Instance") -> bool:
        conns = self.get("/rest/system/connections")["connections"]
        return bool(conns.get(other.device_id, {}).get("connected"))

    def pause(self, other: "Instance") -> None:
        self.call("POST", f"/rest/system/pause?device={other.device_id}")

    def resume(self, other: "Instance") -> None:
        self.call("POST", f"/rest/system/resume?device={other.device_id}")


class Pair:
    """Device a and device b, each with its own copy of the vault, kept in sync by Syncthing."""

    def __init__(self, root: Path):
        self.a = Instance(root / "st-a", root / "vault-a")
        self.b = Instance(root / "st-b", root / "vault-b")
        for inst in (self.a, self.b):
            inst.vault.mkdir(parents=True, exist_ok=True)
        for inst in (self.a, self.b):
            inst.start()
        self.a.share_with(self.b)
        self.b.share_with(self.a)
        self.wait(lambda: self.a.connected(self.b) and self.b.connected(self.a), "the two devices to connect")

    def stop(self) -> None:
        for inst in (self.a, self.b):
            inst.stop()

    @staticmethod
    def wait(check: Any, what: str, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(0.25)

    def in_sync(self) -> bool:
        for here, there in ((self.a, self.b), (self.b, self.a)):
            st = here.status()
            if st.get("state") != "idle" or st.get("needTotalItems", 0) or st.get("pullErrors", 0):
                return False
            done = here.completion(there)
            if done.get("completion") != 100 or done.get("needItems", 0) or done.get("needDeletes", 0):
                return False
        return files_of(self.a.vault) == files_of(self.b.vault)

    def sync(self, timeout: float = 120.0) -> None:
        """Both sides scanned, then wait until each has everything the other has."""
        for inst in (self.a, self.b):
            inst.scan()
        self.wait(self.in_sync, "the two vault copies to be in sync", timeout)
        for inst in (self.a, self.b):  # a pull seen by the other side's scan too
            inst.scan()
        self.wait(self.in_sync, "the two vault copies to be in sync", timeout)


def files_of(vault: Path) -> dict[str, bytes]:
    """Every file Syncthing replicates (its own marker folders left out)."""
    out = {}
    for p in sorted(vault.rglob("*")):
        rel = p.relative_to(vault).as_posix()
        if p.is_file() and not rel.startswith((".stfolder", ".stversions")) and ".syncthing." not in p.name:
            out[rel] = p.read_bytes()
    return out
