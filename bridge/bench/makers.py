"""The service makers the bench's sections take: each opens a MemoryService over a vault
and an index file of the section's own (measure.py's `_service`, with the section's settings)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from vault_sync.dates import MovableClock

if TYPE_CHECKING:
    from vault_sync.service import MemoryService

ServiceAt = Callable[[Path, Path], "MemoryService"]  # (vault, index file)
ServiceWithClock = Callable[[Path, Path, MovableClock], "MemoryService"]  # (vault, index file, the clock)
ServiceWithModel = Callable[[Path, Path, bool], "MemoryService"]  # (vault, index file, embeddings on)
