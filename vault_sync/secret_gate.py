"""The intake gate: every field a write stores is checked for secrets, as a person would
read it. `check_fields` is the one entry point (save, relate, consolidate, archive, and
importers' metadata); the exact rules live in `secrets.py`, this module adds what sees
through obfuscation: Unicode normalisation and keys split by separators or re-cased.
"""
from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Mapping
from typing import Any

from .errors import Refused
from .secrets import _RULES, SecretFinding, _entropy, find_secrets


# --- normalising: what a person sees is what is checked ----------------------

# Invisible characters a key can hide behind: every Unicode format character (Cf:
# soft hyphen, zero-width space/joiners, word joiner, BOM, bidi controls, tags...),
# plus the invisible ones that are not Cf (grapheme joiner, Hangul fillers, variation
# selectors). Hard-coded for speed; a test checks it covers every Cf character.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u180e"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef]")


def normalise(text: str) -> str:
    """Invisible characters removed, then Unicode NFKC (full-width letters become ASCII).

    Line breaks are kept (no character normalises to one), so line numbers still hold.
    """
    if text.isascii():  # the common case costs nothing
        return text
    return unicodedata.normalize("NFKC", _INVISIBLE.sub("", text))


# --- keys split by separators or with their case changed --------------------

# A key's chunks may be joined by up to five of these (" - " next to the key's own "-").
_SEP = r"[\s._-]"
_SEPS = re.compile(_SEP)

# (kind, prefix, body length checked). Only prefixes no ordinary word starts with, so a
# match is worth a closer look; the body then has to look random (below).
_PREFIXES: list[tuple[str, str, int]] = [
    ("AWS access key ID", "akia", 16), ("AWS access key ID", "asia", 16),
    ("Google API key", "aiza", 28),
    ("GitHub token", "ghp_", 36), ("GitHub token", "gho_", 36), ("GitHub token", "ghu_", 36),
    ("GitHub token", "ghs_", 36), ("GitHub token", "ghr_", 36), ("GitHub token", "github_pat_", 50),
    ("GitLab token", "glpat-", 16),
    ("Slack token", "xoxb-", 30), ("Slack token", "xoxp-", 30), ("Slack token", "xoxa-", 30),
    ("Slack token", "xoxr-", 30), ("Slack token", "xoxs-", 30),
    ("Stripe secret key", "sk_live_", 20), ("Stripe secret key", "rk_live_", 20),
    ("Anthropic API key", "sk-ant-", 32), ("OpenRouter API key", "sk-or-v1-", 32),
    ("OpenAI API key", "sk-", 32),
    ("Hugging Face token", "hf_", 30), ("Groq API key", "gsk_", 40), ("Replicate API token", "r8_", 30),
    ("xAI API key", "xai-", 40), ("Perplexity API key", "pplx-", 40), ("LangSmith API key", "lsv2_", 40),
    ("JSON Web Token", "eyj", 40),
]


def _spaced(word: str, inside: str = f"{_SEP}{{0,5}}") -> str:
    return inside.join(re.escape(c) for c in word)


# prefixes that also start words or names in code and prose (sk-learn, hf_hub, the r8
# register, Asia): their body needs the stronger signs of randomness
_WORDLIKE = frozenset({"akia", "asia", "sk-", "hf_", "r8_", "xai-", "gsk_"})


def _prefix_pattern(prefix: str) -> str:
    """Letters may be split by separators (if the prefix is long enough not to occur by
    chance in prose); the prefix's own _ or - may be any short run of separators, and
    must be present after a two-letter prefix ("sk-", not "sketch")."""
    letters = prefix.replace("_", " ").replace("-", " ").split()
    if sum(map(len, letters)) <= 2:
        return re.escape(letters[0]) + f"{_SEP}{{1,5}}"
    return f"{_SEP}{{0,5}}".join(_spaced(w) for w in letters) + f"{_SEP}{{0,5}}"


# One scan for every prefix (longest first, so "sk-ant-" wins over "sk-").
_ORDER = sorted(range(len(_PREFIXES)), key=lambda i: -len(_PREFIXES[i][1]))
_SPLIT_PREFIX = re.compile("|".join(f"(?P<p{i}>{_prefix_pattern(_PREFIXES[i][1])})" for i in _ORDER))


def _first_two() -> re.Pattern[str]:
    """Where a prefix may start: its first two letters at the start of a word. One pass
    with this is ~50 times faster than scanning with the full alternation above, which
    then runs only where this matched."""
    seconds: dict[str, set[str]] = {}
    for _, prefix, _ in _PREFIXES:
        letters = prefix.replace("_", "").replace("-", "")
        seconds.setdefault(letters[0], set()).add(letters[1])
    alts = "|".join(f"{a}{_SEP}{{0,5}}[{''.join(sorted(b))}]" for a, b in sorted(seconds.items()))
    return re.compile(f"(?<![a-z0-9])(?:{alts})")


_CANDIDATE = _first_two()
_BODY = re.compile(r"[a-z0-9+/=]+(?:[\s._-]{1,5}[a-z0-9+/=]+)*")
# A PEM header, its words lower-cased or split: "-----BEGIN RSA PRIVATE KEY-----".
_PEM = re.compile(
    f"-{_SEP}*-{_SEP}*{_spaced('begin')}{_SEP}+(?:[a-z0-9]+{_SEP}+){{0,3}}?{_spaced('private')}{_SEP}*"
    f"{_spaced('key')}(?:{_SEP}*{_spaced('block')})?{_SEP}*")

# The most frequent letter pairs of English: prose glued together is made of them,
# random letters rarely are (about 7% of random pairs).
_COMMON_PAIRS = frozenset("""
    th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io
    le ve co me de hi ri ro ic ne ea ra ce li ch ll be ma si om ur ca el ta la ns ge ly ei
""".split())
_LETTERS = re.compile(r"[a-z]+")


def _wordy(s: str) -> float:
    """Share of adjacent letter pairs of `s` that are common English pairs."""
    pairs = common = 0
    for run in _LETTERS.findall(s):
        for a, b in zip(run, run[1:]):
            pairs += 1
            common += (a + b) in _COMMON_PAIRS
    return common / pairs if pairs else 0.0


def _transitions(s: str) -> int:
    return sum(a.isdigit() != b.isdigit() for a, b in zip(s, s[1:]))


def _case_mixed(original: str) -> bool:
    """Random mixed-case text switches case inside its chunks; prose and CamelCase rarely."""
    pairs = switches = 0
    for a, b in zip(original, original[1:]):
        if a.isalpha() and b.isalpha():
            pairs += 1
            switches += a.isupper() != b.isupper()
    return switches >= 4 and switches >= 0.25 * pairs


def _random_body(kind: str, prefix: str, s: str, original: str, split: bool) -> bool:
    """Does this squeezed, lower-cased body (its first n characters) look generated?"""
    digits = sum(c.isdigit() for c in s)
    if "example" in s:
        return False  # AWS's documented example keys, and their like
    if kind == "Slack token":  # xoxb-<digits>-<digits>-<random>: the digit runs are the tell
        return digits >= 8
    if not split:  # a long unbroken run after a key prefix: only its case was changed
        return _entropy(s) >= 3.0 and (digits > 0 or _wordy(s) < 0.3)
    if _case_mixed(original) and _wordy(s) < 0.45:
        return True
    if _transitions(s) >= 3 and _wordy(s) < 0.35:
        return True
    if kind == "AWS access key ID" and digits and _wordy(s) < 0.25:
        return True  # 16 upper-case letters and digits: short, so fewer digit runs
    if prefix not in _WORDLIKE and (_transitions(s) >= 2 and _wordy(s) < 0.35 or _wordy(s) < 0.25):
        return True  # nothing in prose starts like "glpat-" or "ghp_": a weaker sign will do
    return _wordy(s) < 0.15 and sum(c.isalpha() for c in s) >= 12


def _body_at(low: str, text: str, pos: int, n: int, kind: str):
    """The first n characters of the body after a prefix, separators squeezed out."""
    m = _BODY.match(low, pos, pos + 6 * n)
    if m is None:
        return None
    raw = m.group(0)
    squeezed = _SEPS.sub("", raw)
    if kind not in ("JSON Web Token", "private key block"):
        squeezed = squeezed.replace("+", "").replace("/", "").replace("=", "")
    if len(squeezed) < n:
        return None
    original = text[pos:m.end()] if len(text) == len(low) else raw
    split = _SEPS.search(raw, 0, len(raw)) is not None and len(_SEPS.split(raw, 1)[0]) < n
    return squeezed[:n], original, split


_JWT_EXACT = next(p for kind, _, p, _ in _RULES if kind == "JSON Web Token")


def _whole_jwt(text: str, start: int) -> bool:
    """Written as a token (three parts, a header of letters and digits only): then the
    exact rule has decoded the header and judged it. A header with - or _ in it may be
    one split by them, which does not decode."""
    m = _JWT_EXACT.match(text, start)
    if m is None or text[m.end():m.end() + 1] == ".":
        return False
    head = m.group(0).split(".", 1)[0]
    return head.isalnum()


def find_obfuscated(text: str) -> list[SecretFinding]:
    """Keys the exact rules miss: split by spaces, dots, dashes or underscores, or with
    their case changed. Run on normalised text (see `normalise`)."""
    low = text.lower()
    hits: list[tuple[int, str]] = []
    for c in _CANDIDATE.finditer(low):
        m = _SPLIT_PREFIX.match(low, c.start())
        if m is None:
            continue
        start = m.start()
        kind, prefix, n = _PREFIXES[int(m.lastgroup[1:])]
        if kind == "JSON Web Token" and (_whole_jwt(text, start) or low[start - 1:start] == "."):
            continue  # an intact token the exact rule has judged (by its header), or a later part of one
        got = _body_at(low, text, m.end(), n, kind)
        if got is not None and _random_body(kind, prefix, *got):
            hits.append((start, kind))
    if "--" in low:
        for m in _PEM.finditer(low):
            got = _body_at(low, text, m.end(), 40, "private key block")
            if got is not None and _random_body("private key block", "", *got):
                hits.append((m.start(), "private key block"))
    if not hits:
        return []
    newlines = [m.start() for m in re.finditer("\n", text)]
    return [SecretFinding(kind, bisect_right(newlines, start - 1) + 1) for start, kind in sorted(hits)]


def scan(text: str) -> list[SecretFinding]:
    """Every secret in `text` once it is normalised: the exact rules, then split and
    case-changed keys (each kind reported once per line)."""
    norm = normalise(text)
    found = find_secrets(norm)
    seen = {(f.kind, f.line) for f in found}
    found += [f for f in find_obfuscated(norm) if (f.kind, f.line) not in seen]
    return sorted(set(found), key=lambda f: f.line)


# --- the gate ----------------------------------------------------------------

def _refuse(field: str, value: str) -> None:
    findings = scan(value)
    if findings:
        _raise(field, findings, "\n" in value.strip())


def _raise(field: str, findings: list[SecretFinding], lines: bool) -> None:
    kinds = ", ".join(sorted({f.kind for f in findings}))
    where = "; line " + ", ".join(str(f.line) for f in findings[:5]) if lines else ""
    raise Refused(f"refused: the {field} contains a secret ({kinds}{where}); secrets are never stored")


def check_fields(fields: Mapping[str, Any]) -> None:
    """The intake gate for every field a write stores (text, title, tags, relation type,
    an importer's metadata): raises `Refused` naming the field and the kind of secret,
    never the secret. Lists are checked item by item, mappings key and value."""
    for name, value in fields.items():
        _check(str(name), value)


def _check(name: str, value: Any) -> None:
    if value is None or isinstance(value, (bool, int, float)):
        return
    if isinstance(value, str):
        _refuse(name, value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _refuse(f"{name} key", str(key))  # a key lands in frontmatter too; named only once it passed
            _check(f"{name}.{key}", item)
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        if all(isinstance(v, str) and "\n" not in v for v in items):
            # one scan for all (tags): item i is line i, so the finding names its item
            # (a key split across neighbouring items is caught too)
            findings = scan("\n".join(items))
            if findings:
                _raise(f"{name} (item {findings[0].line})", [f for f in findings if f.line == findings[0].line], False)
            return
        for i, item in enumerate(items, 1):
            _check(f"{name} (item {i})", item)
    else:
        _refuse(name, str(value))
