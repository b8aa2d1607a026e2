"""Details two statements of one fact must share: numbers (and versions), names, negation.

The repeat check (ops/repeats.py) reads these beside the model: two sentences the model finds
close ("Redis session TTL is 30 minutes" / "... 60 minutes", "Alice is vegetarian" / "Alice is
not vegetarian") are different facts when a number, a name or a negation differs, when one
run of content words was swapped for another ("in her coffee" / "in her tea"), or when the new
one adds several content words the old one lacks (a detail added).
"""

from __future__ import annotations

import re

from .search.fts import STOPWORDS
from .wordcount import has_unspaced

# a token: letters and digits, keeping inner dots, colons, hyphens and apostrophes
# ("eu-west-1", "3.11", "9:30", "Marta's"); a word: letters or digits only
_TOKEN = re.compile(r"[^\W_](?:[\w.:'’-]*[^\W_])?")
_WORD = re.compile(r"\d+(?:[.:,]\d+)*|[^\W_]+")
_SPOKEN = {
    w: str(i) for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())
}
_SPOKEN.update(fifteen="15", twenty="20", thirty="30", forty="40", fifty="50", hundred="100", dozen="12", twice="2")
_NEGATION = frozenset("not no never none nobody nothing neither nor without cannot longer".split())
ADDED_WORDS = 3  # content words the new text has beyond the old one's: a detail added


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def numbers(text: str) -> set[str]:
    """Numbers, versions and codes holding a digit ("9:30", "3.11", "eu-west-1", "A100"), and
    small numbers in words as digits ("two" = "2")."""
    out = set()
    for token in _TOKEN.findall(text):
        t = token.lower()
        if any(c.isdigit() for c in t):
            out.add(t[:-1] if t.endswith("s") and t[-2:-1].isdigit() else t)  # "A100s" = "A100"
        elif t in _SPOKEN:
            out.add(_SPOKEN[t])
    return out


def negated(text: str) -> bool:
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    return any(t in _NEGATION or t.endswith(("n't", "n’t")) for t in tokens)


def names(text: str) -> set[str]:
    """Words of capitalised tokens after the first (names, places, products), without short
    acronyms ("TTL", "API": terms a rewording may spell out)."""
    out: set[str] = set()
    for i, token in enumerate(_TOKEN.findall(text)):
        if i == 0 or not token[0].isupper() or token == "I" or any(c.isdigit() for c in token):
            continue
        if token.isupper() and len(token) <= 4:
            continue
        out.update(words(re.split("['’]", token)[0]))
    return out


def _stem(word: str) -> str:
    return word[:4]


def _meets(a: str, others: set[str]) -> bool:
    """`a` is among `others`, a short word as the start of a longer one ("peanut"/"peanuts")."""
    return any(a == b or min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a)) for b in others)


def content_stems(text: str) -> set[str]:
    return {_stem(w) for w in words(text) if w not in STOPWORDS and not w[0].isdigit() and w not in _SPOKEN}


def _bare(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())


def word_closeness(new: str, old: str) -> float:
    """Without a model: the smaller of the shares of each text's content words found in the other."""
    if has_unspaced(new) or has_unspaced(old):
        return 1.0 if _bare(new) == _bare(old) else 0.0
    a, b = content_stems(new), content_stems(old)
    if not a or not b:
        return 0.0
    return min(sum(_meets(s, b) for s in a) / len(a), sum(_meets(s, a) for s in b) / len(b))


def swapped_run(new: list[str], old: list[str]) -> tuple[list[str], list[str]] | None:
    """The one run of words that differs when the two sentences are the same but for it (the
    rest at least half of each), else None."""
    n = min(len(new), len(old))
    head = 0
    while head < n and new[head] == old[head]:
        head += 1
    tail = 0
    while tail < n - head and new[-1 - tail] == old[-1 - tail]:
        tail += 1
    a, b = new[head : len(new) - tail], old[head : len(old) - tail]
    if not a and not b or set(a) & set(b) or 2 * (head + tail) < max(len(new), len(old)):
        return None
    return a, b


def slot_changed(new: list[str], old: list[str]) -> bool:
    """One run of content words swapped ("coffee" / "tea", "kitchen" / "bathroom") or added
    ("... and also my mentor"). A run holding function words is a rewording of the
    predicate ("is valid until" / "expires in") and does not count."""
    run = swapped_run(new, old)
    if run is None:
        return False
    a, b = run
    if not a or not b:
        return any(w not in STOPWORDS for w in a or b)
    return all(w not in STOPWORDS for w in a + b)


def differs(new: str, old: str, change_words: frozenset[str] = frozenset()) -> str | None:
    """Why `new` is not the same fact as `old` ("number", "negation", "name", "change",
    "detail", "swap", "unspaced"), or None when nothing tells them apart."""
    if (has_unspaced(new) or has_unspaced(old)) and _bare(new) != _bare(old):
        return "unspaced"  # no spaces to find words by: only the same characters are the same fact
    if numbers(new) != numbers(old):
        return "number"
    if negated(new) != negated(old):
        return "negation"
    new_words, old_words = words(new), words(old)
    new_all, old_all = {_stem(w) for w in new_words}, {_stem(w) for w in old_words}
    if any(not _meets(_stem(n), old_all) for n in names(new)) or any(not _meets(_stem(n), new_all) for n in names(old)):
        return "name"
    if any(w in change_words and w not in old_words for w in new_words):
        return "change"  # "now", "moved", "stopped": an update (may_supersede), not a repeat
    a, b = content_stems(new), content_stems(old)
    if sum(not _meets(s, b) for s in a) - sum(not _meets(s, a) for s in b) >= ADDED_WORDS:
        return "detail"
    if slot_changed(new_words, old_words):
        return "swap"
    return None
