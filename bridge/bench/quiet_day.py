"""How often the default lifecycle rewrites a note when nobody works in the vault (every
write is a new version in Obsidian Sync, iCloud, Dropbox or git, so a quiet vault stays quiet).

A vault of short-term memories of mixed age and use is given a settled start (one full
sweep), then the real lifecycle (`run_lifecycle`: sweep, promote, archive) runs every
`interval_s` of a simulated clock for `hours`. After each run every Markdown file in the
vault is hashed; each file whose content changed, appeared or vanished counts as one write.
Touches (if `touch_share` > 0, that share of the memories is touched at the top of every
hour) are counted apart, so the figure is the lifecycle's own writes.
"""

from __future__ import annotations

import hashlib
import random
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

START = datetime(2026, 11, 20, 12, 0, 0, tzinfo=timezone.utc)


def _note(i: int, now: datetime, rng: random.Random) -> str:
    last = now - timedelta(hours=rng.uniform(0, 24 * 8))
    created = last - timedelta(days=rng.uniform(0, 10))
    uses = rng.choice((1, 1, 1, 2, 2, 3, 4))
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    return (
        f"---\nid: 00000000-0000-4000-8000-{i:012d}\ntags: [topic{i % 7}]\ncreated: {created.strftime(stamp)}\n"
        f"last_used: {last.strftime(stamp)}\nuse_count: {uses}\nstrength: {rng.choice((0.8, 1.0, 1.0, 1.2))}\n"
        f"status: active\n---\nMemory number {i}: something worth keeping for a while.\n"
    )


def _hashes(root: Path) -> dict[str, str]:
    out = {}
    for path in root.rglob("*.md"):
        if ".mnemovault" in path.parts:
            continue
        out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _changed(before: dict[str, str], after: dict[str, str]) -> dict[str, int]:
    """Rewritten in place, moved (promoted or archived: gone from one path, new at another,
    one event), and other files (the LTM index note a promotion updates)."""
    rewritten = sum(1 for k in before.keys() & after.keys() if before[k] != after[k] and k.startswith("STM"))
    other = sum(1 for k in before.keys() & after.keys() if before[k] != after[k] and not k.startswith("STM"))
    gone, new = len(before.keys() - after.keys()), len(after.keys() - before.keys())
    return {"rewritten": rewritten, "moved": max(gone, new), "other": other}


def quiet_day_figures(notes: int = 300) -> dict[str, Any]:
    """The bench rows: untouched, 10% touched each hour, and the exact write-back of before
    (`score_refresh_hours: 0`, a few hours of a small vault, scaled to a day)."""
    return {
        "untouched": simulate_day(notes=notes),
        "touched": simulate_day(notes=notes, touch_share=0.1),
        "exact": simulate_day(notes=30, hours=3, score_refresh_hours=0),
    }


def simulate_day(
    vault: Path | None = None,
    notes: int = 300,
    hours: float = 24.0,
    interval_s: float = 300.0,
    touch_share: float = 0.0,
    seed: int = 16,
    **settings: Any,
) -> dict[str, Any]:
    """Writes per STM note per simulated day; `settings` override the defaults (as a person would)."""
    from vault_sync.index import queries
    from vault_sync.ops.lifecycle import run_lifecycle
    from vault_sync.service import MemoryService
    from vault_sync.settings import load_settings

    with tempfile.TemporaryDirectory() as tmp:
        root = vault or Path(tmp) / "vault"
        (root / "STM").mkdir(parents=True, exist_ok=True)
        rng = random.Random(seed)
        clock = {"now": START}
        for i in range(notes):
            (root / "STM" / f"m{i:04d}.md").write_text(_note(i, START, rng), encoding="utf-8")
        opts = {"quiet_seconds": 0, "embeddings": False, "index_path": Path(tmp) / "index.db", **settings}
        svc = MemoryService(load_settings(vault=root, **opts), clock=lambda: clock["now"])
        try:
            svc.sync()
            # the settled start: every note carries a score written at some hour of the day
            # before (spread, as in a vault in use), and what was already due has moved
            paths = sorted(queries.stm_paths(svc.store))
            for hour in range(24):
                clock["now"] = START - timedelta(hours=24 - hour)
                svc.sweep(paths[hour::24], full=True)
            clock["now"] = START
            run_lifecycle(svc.engine)
            state = _hashes(root)
            counts = {"rewritten": 0, "moved": 0, "other": 0}
            touches = 0
            steps = int(hours * 3600 / interval_s)
            per_hour = max(1, int(3600 / interval_s))
            for step in range(1, steps + 1):
                clock["now"] = START + timedelta(seconds=step * interval_s)
                if touch_share > 0 and step % per_hour == 0:
                    live = sorted(queries.stm_paths(svc.store))  # promoted and archived ones are gone
                    for ref in rng.sample(live, int(len(live) * touch_share)):
                        svc.touch(ref)
                        touches += 1
                    state = _hashes(root)  # the touches' own writes are not the lifecycle's
                run_lifecycle(svc.engine)
                after = _hashes(root)
                for k, v in _changed(state, after).items():
                    counts[k] += v
                state = after
            days = hours / 24.0
            total = sum(counts.values())
            return {
                "notes": notes,
                "days": days,
                "lifecycle_writes": total,
                **counts,
                "touches": touches,
                "writes_per_note_per_day": total / notes / days,
                "rewrites_per_note_per_day": counts["rewritten"] / notes / days,
                "interval_s": interval_s,
                "touch_share": touch_share,
            }
        finally:
            svc.close()
