"""Uses counted per device, so that uses made on two devices during a network split add up.

A note's `use_count` stays the total every reader uses. Beside it, once a device has used
the memory, `uses_by_device` records where the uses came from, one line in the frontmatter:

    use_count: 6
    uses_by_device: {base: 1, laptop-1a2b3c4d: 2, desk-5e6f7a8b: 3}

`base` is the count from before any device recorded its own (the use_count of an older note,
or one a person wrote). A use on a device adds 1 to that device's entry only; two versions of
a note (a sync-conflict copy, a move left half done) merge entry by entry, taking the larger,
then use_count is the sum again: each use counted once, however often the merge runs.

A person editing use_count by hand is respected: when use_count is not the sum of the entries,
the difference goes into `base` at the next write. A note without the map is all base: it
merges exactly as before (the larger count), and nothing is written until a device uses it.
"""

from __future__ import annotations

from typing import Any

from .note import USES_BASE as BASE
from .note import USES_KEY as KEY
from .patch import Spelled
from .scalars import render_scalar

DEFAULT_DEVICE = "local"  # a device with no id (tests, a library caller): still one entry of its own


def tally(use_count: int, by_device: dict[str, int] | None) -> dict[str, int]:
    """The per-device counts behind `use_count`: a hand edit (a total that is not the sum)
    becomes a change of base, so the total read is always the note's own use_count."""
    counts = dict(by_device) if by_device else {}
    counts.setdefault(BASE, 0)
    if by_device is None:
        counts[BASE] = use_count
    else:
        counts[BASE] += use_count - sum(counts.values())
    return counts


def used_on(device: str, use_count: int, by_device: dict[str, int] | None) -> dict[str, int]:
    """The counts after one use on `device`."""
    counts = tally(use_count, by_device)
    name = device if device and device != BASE else DEFAULT_DEVICE
    counts[name] = counts.get(name, 0) + 1
    return counts


def merged(a: tuple[int, dict[str, int] | None], b: tuple[int, dict[str, int] | None]) -> dict[str, int] | None:
    """Two versions' (use_count, map) merged entry by entry; None when neither has a map
    (then the larger use_count wins, as it always did)."""
    if a[1] is None and b[1] is None:
        return None
    out = tally(*a)
    for k, v in tally(*b).items():
        out[k] = max(out[k], v) if k in out else v
    return out


def updates_for(counts: dict[str, int]) -> dict[str, Any]:
    """The frontmatter updates writing `counts`: the map on one line, and the total."""
    ordered = {BASE: counts.get(BASE, 0), **{k: counts[k] for k in sorted(counts) if k != BASE}}
    text = "{" + ", ".join(f"{render_scalar(k, flow=True)}: {v}" for k, v in ordered.items()) + "}"
    return {"use_count": max(sum(ordered.values()), 0), KEY: Spelled(text, ordered)}


def merge_updates(kept: tuple[int, dict[str, int] | None], other: tuple[int, dict[str, int] | None]) -> dict[str, Any]:
    """The updates that bring the kept version's (use_count, map) to the merge of both; {}
    when it already holds it (merging again, or a version with itself, writes nothing)."""
    counts = merged(kept, other)
    if counts is None:
        return {"use_count": other[0]} if other[0] > kept[0] else {}
    out = updates_for(counts)
    if kept[1] == out[KEY].value and kept[0] == out["use_count"]:
        return {}
    return out
