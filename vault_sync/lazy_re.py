"""A regular expression compiled on its first use. The patterns of whole scripts (Han, kana,
Hangul, Thai...) take a few milliseconds each to compile, and an ASCII text never needs them:
compiled at import they were part of every process's start, a daemon's first save's too."""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """Stands for `re.compile(pattern, flags)`: any method of the pattern compiles it once."""

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern, self.flags = pattern, flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled(), name)
