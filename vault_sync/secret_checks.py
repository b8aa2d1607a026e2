"""The checks a secret rule runs on its match: does the value look generated?"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Callable, Optional


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


_HEXISH = re.compile(r"[0-9a-f_-]+")


def _looks_random(s: str, min_len: int = 16) -> bool:
    """Generated tokens mix digits with mixed-case letters (or are hex);
    hyphenated words like "sk-learn-compatible-wrapper" do not."""
    if len(s) < min_len or _entropy(s) < 3.0:
        return False
    has_digit = any(c.isdigit() for c in s)
    mixed = any(c.isupper() for c in s) and any(c.islower() for c in s)
    hexish = _HEXISH.fullmatch(s) is not None
    return has_digit and (mixed or hexish)


Check = Optional[Callable[[re.Match[str]], bool]]


def _body_random(group: int = 1, min_len: int = 16) -> Callable[[re.Match[str]], bool]:
    return lambda m: _looks_random(m.group(group), min_len)


def _slack_token(m: re.Match[str]) -> bool:
    body: str = m.group(1)
    return sum(c.isdigit() for c in body) >= 4
