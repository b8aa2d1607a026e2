"""How much a text says, in any script: words where words are written with spaces between
them, characters where they are not.

Chinese and Japanese write no spaces: a word there is one to three characters (about two).
Thai, Lao, Khmer, Myanmar and Tibetan write none between words either (spaces mark phrases),
and a word takes about four code points (its vowel signs and tone marks are code points too).
Korean writes spaces between words, so its words count like English ones; a Hangul syllable
is as long as two or three Latin letters, which the width below accounts for.
"""

from __future__ import annotations

import re
import unicodedata

from .lazy_re import LazyPattern

# Han, kana, bopomofo (and their compatibility and extension blocks): about two per word.
_WIDE_RANGES = (
    "\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3041-\u309f\u30a1-\u30ff\u3105-\u312f\u31a0-\u31bf\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f"
)
# Thai, Lao, Tibetan, Myanmar, Khmer, Tai Tham, Tai Viet: about four code points per word.
_SOUTHEAST_RANGES = "\u0e00-\u0e7f\u0e80-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u1a20-\u1aaf\uaa80-\uaadf"
_HANGUL_RANGES = "\u1100-\u11ff\u3131-\u318e\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"

_WIDE = LazyPattern(f"[{_WIDE_RANGES}]")
_SOUTHEAST = LazyPattern(f"[{_SOUTHEAST_RANGES}]")
_HANGUL = LazyPattern(f"[{_HANGUL_RANGES}]")
_UNSPACED = LazyPattern(f"[{_WIDE_RANGES}{_SOUTHEAST_RANGES}]")

_CLAUSE_MARK = re.compile("(?<=[，、,；;：:])")  # split after each mark, keeping it

CHARS_PER_WORD_WIDE = 2
CHARS_PER_WORD_SOUTHEAST = 4


def _spaced_words(token: str) -> int:
    """Words written with spaces inside one whitespace-free token: the runs left once the
    unspaced scripts are taken out (`東京でPythonを` holds one, `Python`) that hold a letter
    or a digit (a dash or an emoji alone is not a word)."""
    return sum(any(c.isalnum() for c in part) for part in _UNSPACED.split(token))


def words(text: str) -> float:
    """About how many words `text` holds, in any mixture of scripts."""
    if text.isascii():
        return float(sum(any(c.isalnum() for c in t) for t in text.split()))
    wide = len(_WIDE.findall(text))
    southeast = len(_SOUTHEAST.findall(text))
    spaced = sum(_spaced_words(t) for t in text.split())
    return spaced + wide / CHARS_PER_WORD_WIDE + southeast / CHARS_PER_WORD_SOUTHEAST


def width(text: str) -> int:
    """The text's length as Latin letters would take it: a Han, kana or Hangul character
    counts two (as it does on screen), every other character one."""
    if text.isascii():
        return len(text)
    return len(text) + len(_WIDE.findall(text)) + len(_HANGUL.findall(text))


def first_words(text: str, n: int) -> str:
    """The start of a one-line `text` holding about `n` words: whole tokens where words are
    written with spaces (each token one word, as a file name counts them), and inside a
    token of an unspaced script, characters up to what is left (never splitting a vowel
    sign or tone mark from its letter)."""
    out: list[str] = []
    left = float(n)
    for token in text.split():
        if left <= 0:
            break
        unspaced = not token.isascii() and _UNSPACED.search(token) is not None
        size = words(token) if unspaced else 1.0
        if size <= left or not unspaced:
            out.append(token)
            left -= size
            continue
        cut: list[str] = []
        for ch in token:
            if unicodedata.category(ch).startswith("M"):  # a mark belongs to the letter before it
                cut.append(ch)
                continue
            step = words(ch) if _UNSPACED.match(ch) else 0.0
            if step > left:
                break
            cut.append(ch)
            left -= step
        piece = "".join(cut)
        clause = _CLAUSE_MARK.split(piece)
        if len(clause) > 1 and clause[0]:  # cut mid-clause: end at the clause before it instead
            piece = "".join(clause[:-1]) if clause[-1] else piece
            piece = piece.rstrip("，、,；;：: ")
        out.append(piece)
        break
    return " ".join(t for t in out if t)


def has_unspaced(text: str) -> bool:
    """Does `text` hold a script written without spaces between words (Han, kana, Thai...)?"""
    return not text.isascii() and _UNSPACED.search(text) is not None  # the scripts are not ASCII
