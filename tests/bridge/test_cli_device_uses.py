"""The CLI records a use as this device's, under the id in its config folder (a real subprocess)."""

from __future__ import annotations

from pathlib import Path

from daemon_util import child_env, cli

from vault_sync.note import parse_note

STAGING = "STM/Staging runs Postgres 16.md"


def test_a_touch_from_the_cli_is_recorded_under_this_devices_id(vault, tmp_path):
    env = child_env(tmp_path / "home", MNEMOVAULT_NO_DAEMON="1")
    config = Path(env["MNEMOVAULT_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "device_id").write_text("desk-5e6f7a8b\n", encoding="utf-8")
    for _ in range(2):
        out = cli("touch", STAGING, "--vault", str(vault), "--json", env=env)
        assert out.returncode == 0, out.stderr
    note = parse_note(STAGING, (vault / STAGING).read_bytes())
    assert note.fields.use_count == 3
    assert note.fields.uses_by_device == {"base": 1, "desk-5e6f7a8b": 2}
