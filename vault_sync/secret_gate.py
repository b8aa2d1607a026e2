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
from .secret_checks import _entropy
from .secrets import _RULES, SecretFinding, find_secrets

# --- normalising: what a person sees is what is checked ----------------------

# Invisible characters a key can hide behind: every Unicode format character (Cf:
# soft hyphen, zero-width space/joiners, word joiner, BOM, bidi controls, tags...),
# plus the invisible ones that are not Cf (grapheme joiner, Hangul fillers, variation
# selectors). Hard-coded for speed; a test checks it covers every Cf character.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u180e"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef]"
)


_INVISIBLE_SET = frozenset(
    _INVISIBLE.findall(
        "".join(
            map(
                chr,
                (
                    *range(0xAD, 0x3200),
                    *range(0xFE00, 0x10000),
                    *range(0x110BD, 0x110CE),
                    *range(0x13430, 0x13439),
                    *range(0x1BCA0, 0x1BCA4),
                    *range(0x1D173, 0x1D17B),
                    *range(0xE0001, 0xE01F0),
                ),
            )
        )
    )
)


def normalise(text: str) -> str:
    """Invisible characters removed, then Unicode NFKC (full-width letters become ASCII).

    Line breaks are kept (no character normalises to one), so line numbers still hold.
    """
    if text.isascii():  # the common case costs nothing
        return text
    if not _INVISIBLE_SET.isdisjoint(text):  # a set lookup per character is faster than the regex
        text = _INVISIBLE.sub("", text)
    return unicodedata.normalize("NFKC", text)


# --- keys split by separators or with their case changed --------------------

# A key's chunks may be joined by up to five of these (" - " next to the key's own "-").
_SEP = r"[\s._-]"
_SEPS = re.compile(_SEP)

# (kind, prefix, body length checked). A prefix match is only worth a closer look: the
# body after it, separators squeezed out, then has to look generated (`_random_body`).
_PREFIXES: list[tuple[str, str, int]] = [
    ("AWS access key ID", "akia", 16),
    ("AWS access key ID", "asia", 16),
    ("Google API key", "aiza", 28),
    ("GitHub token", "ghp_", 36),
    ("GitHub token", "gho_", 36),
    ("GitHub token", "ghu_", 36),
    ("GitHub token", "ghs_", 36),
    ("GitHub token", "ghr_", 36),
    ("GitHub token", "github_pat_", 50),
    ("GitLab token", "glpat-", 18),
    ("Slack token", "xoxb-", 30),
    ("Slack token", "xoxp-", 30),
    ("Slack token", "xoxa-", 30),
    ("Slack token", "xoxr-", 30),
    ("Slack token", "xoxs-", 30),
    ("Stripe secret key", "sk_live_", 20),
    ("Stripe secret key", "rk_live_", 20),
    ("Anthropic API key", "sk-ant-", 32),
    ("OpenRouter API key", "sk-or-v1-", 32),
    ("OpenAI API key", "sk-proj-", 32),
    ("OpenAI API key", "sk-svcacct-", 32),
    ("OpenAI API key", "sk-admin-", 32),
    ("OpenAI API key", "sk-", 32),
    ("Hugging Face token", "hf_", 30),
    ("Groq API key", "gsk_", 40),
    ("Replicate API token", "r8_", 30),
    ("xAI API key", "xai-", 40),
    ("Perplexity API key", "pplx-", 40),
    ("LangSmith API key", "lsv2_", 40),
    ("JSON Web Token", "eyj", 80),
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


# Every prefix in one pattern, matched where a candidate starts (longest first, so
# "sk-ant-" wins over "sk-").
_ORDER = sorted(range(len(_PREFIXES)), key=lambda i: -len(_PREFIXES[i][1]))
_SPLIT_PREFIX = re.compile("|".join(f"(?P<p{i}>{_prefix_pattern(_PREFIXES[i][1])})" for i in _ORDER))


def _first_two() -> list[re.Pattern[str]]:
    """Where a prefix may start: its first two letters at the start of a word, one
    pattern per first letter (a pattern that starts with a literal is searched fast).
    This is ~50 times faster than scanning with the full alternation above, which then
    runs only where one of these matched."""
    seconds: dict[str, set[str]] = {}
    for _, prefix, _ in _PREFIXES:
        letters = prefix.replace("_", "").replace("-", "")
        seconds.setdefault(letters[0], set()).add(letters[1])
    return [re.compile(f"{a}(?<![a-z0-9]{a}){_SEP}{{0,5}}[{''.join(sorted(b))}]") for a, b in sorted(seconds.items())]


_CANDIDATES = _first_two()
_NOT_IN_KEY = re.compile(r"[+/=]")
_BODY = re.compile(r"[a-z0-9+/=]+(?:[\s._-]{1,8}[a-z0-9+/=]+)*")
# A PEM header, its words lower-cased or split: "-----BEGIN RSA PRIVATE KEY-----".
_PEM = re.compile(
    f"-{_SEP}*-{_SEP}*{_spaced('begin')}{_SEP}+(?:[a-z0-9]+{_SEP}+){{0,3}}?{_spaced('private')}{_SEP}*"
    f"{_spaced('key')}(?:{_SEP}*{_spaced('block')})?{_SEP}*"
)

# The 150 most frequent letter pairs inside English words (counted on package docs):
# they make up ~87% of the pairs in prose, ~22% of those in random letters.
_COMMON_PAIRS = frozenset(
    """
    in th on or at se er en re ti he an es ta ar de io te me co ed et is it as nd nt ng st
    ri tr li al di ra to ns da le ce ma of fo ic na ro el am ve pe if od ut si ct ec rs ne
    ou nc ss us mo pr ai om no la ll im op wi ch ha ac pa ca ea ot ht ur mp ol ge ts tt rm
    lo hi cl il ho ty pl fi so bu mi po ib em ue ul ls be ie su fa ab py ex ig id ni ap ia
    um tp rt vi ag ev do lu wa ow ps ir pi un ry gi sc os bl rr tu oo oc rc ef ci sp qu va
    ee ad ru cu gh
""".split()
)
_LETTERS = re.compile(r"[a-z]+")


def _wordy(s: str) -> float:
    """Share of adjacent letter pairs of `s` that are common English pairs (at most 0.5
    for fewer than six pairs, too few to tell: mostly digits)."""
    pairs = common = 0
    for run in _LETTERS.findall(s):
        for a, b in zip(run, run[1:]):
            pairs += 1
            common += (a + b) in _COMMON_PAIRS
    if not pairs:
        return 0.0
    return common / pairs if pairs >= 6 else min(0.5, common / pairs)


def _transitions(s: str) -> int:
    return sum(a.isdigit() != b.isdigit() for a, b in zip(s, s[1:]))


_CONSONANTS = re.compile(r"[b-df-hj-np-tv-xz]{4,}")


def _unpronounceable(original: str) -> int:
    """Chunks holding four consonants in a row: random letters often, English words rarely."""
    return len(_CONSONANTS.findall(original.lower()))


def _case_mixed(original: str) -> bool:
    """Random mixed-case text switches case inside its chunks; prose and CamelCase rarely."""
    pairs = switches = 0
    for a, b in zip(original, original[1:]):
        if a.isalpha() and b.isalpha():
            pairs += 1
            switches += a.isupper() != b.isupper()
    return switches >= 4 and switches >= 0.25 * pairs


def _random_body(kind: str, distinctive: bool, s: str, original: str, split: bool, n: int) -> bool:
    """Does this squeezed, lower-cased body (its first n characters) look generated?"""
    digits = sum(c.isdigit() for c in s)
    if "example" in s:
        return False  # AWS's documented example keys, and their like
    if kind == "Slack token":  # xoxb-<digits>-<digits>-<random>: the digit runs are the tell
        return digits >= 8
    wordy, turns = _wordy(s), _transitions(s)
    if not split:  # an unbroken run after a key prefix (no word is this long)
        if kind == "JSON Web Token":
            return False  # one part only: base64 JSON (a paging token), not header.payload.signature
        head = original[:n]
        if head != head.lower() and head != head.upper():
            # case intact: the exact rule has judged it, wanting a digit; letters only
            # pass here if the prefix is no word and about half are capitals (not CamelCase)
            upper = sum(c.isupper() for c in head) / max(1, sum(c.isalpha() for c in head))
            return distinctive and 0.3 <= upper <= 0.7 and _case_mixed(head) and wordy < 0.6
        if n > 16:
            return _entropy(s) >= (2.5 if distinctive else 3.0)
        return _entropy(s) >= 2.5 and (digits > 0 or wordy < 0.5)
    if _case_mixed(original) and wordy < 0.6:
        return True
    if turns >= max(5, 0.35 * n) and wordy < 0.8 or turns >= 5 and wordy < 0.6 or turns >= 3 and wordy < 0.4:
        return True
    if _unpronounceable(original) >= 2 and wordy < 0.5:
        return True
    if kind == "AWS access key ID" and digits and wordy < 0.45:
        return True  # 16 upper-case letters and digits: short, so fewer digit runs
    if distinctive and (turns >= max(3, 0.15 * n) or turns >= 2 and wordy < 0.55 or wordy < 0.45):
        return True  # nothing in prose starts like "glpat-" or "ghp_": a weaker sign will do
    return wordy < 0.35 and sum(c.isalpha() for c in s) >= 12


def _body_at(low: str, text: str, pos: int, n: int, kind: str) -> tuple[str, str, bool, int] | None:
    """The first n characters of the body after a prefix, separators squeezed out."""
    m = _BODY.match(low, pos, pos + 6 * n)
    if m is None:
        return None
    raw = m.group(0)
    if kind not in ("JSON Web Token", "private key block"):
        raw = _NOT_IN_KEY.split(raw, 1)[0]  # base64 signs end other keys (paths, URLs)
    squeezed = _SEPS.sub("", raw)
    if len(squeezed) < n:
        return None
    original = text[pos : pos + len(raw)] if len(text) == len(low) else raw
    first = len(_SEPS.split(raw, 1)[0])
    if kind == "AWS access key ID" and first > n:
        return None  # unbroken, but longer than a key ID: a word or an identifier
    return squeezed[:n], original, first < n, n


_JWT_EXACT = next(p for kind, _, p, _ in _RULES if kind == "JSON Web Token")


def _whole_jwt(text: str, start: int) -> bool:
    """Written as a token (three parts, a header of letters and digits only): then the
    exact rule has decoded the header and judged it. A header with - or _ in it may be
    one split by them, which does not decode."""
    m = _JWT_EXACT.match(text, start)
    if m is None or text[m.end() : m.end() + 1] == ".":
        return False
    head = m.group(0).split(".", 1)[0]
    return head.isalnum()


def find_obfuscated(text: str) -> list[SecretFinding]:
    """Keys the exact rules miss: split by spaces, dots, dashes or underscores, or with
    their case changed. Run on normalised text (see `normalise`)."""
    low = text.lower()
    hits: list[tuple[int, str]] = []
    for c in (c for pattern in _CANDIDATES for c in pattern.finditer(low)):
        m = _SPLIT_PREFIX.match(low, c.start())
        if m is None:
            continue
        start = m.start()
        kind, prefix, n = _PREFIXES[int((m.lastgroup or "p0")[1:])]
        if kind == "JSON Web Token" and (_whole_jwt(text, start) or low[start - 1 : start] == "."):
            continue  # an intact token the exact rule has judged (by its header), or a later part of one
        got = _body_at(low, text, m.end(), n, kind)
        # a prefix no word starts with needs less proof, if it is on one line and whole
        # ("ghp_", not "gh p_"; a long one may be split: "gl pat-")
        head = m.group(0).rstrip(" \t\n\r\f\v._-")
        punctuated = head != m.group(0) or prefix[-1] not in "_-"  # "ghp_...", not "ghost"
        distinctive = (
            prefix not in _WORDLIKE
            and punctuated
            and "\n" not in head
            and (head == prefix.rstrip("_-") or len(prefix.replace("_", "").replace("-", "")) >= 4)
        )
        if got is not None and _random_body(kind, distinctive, *got):
            hits.append((start, kind))
    if "--" in low:
        for m in _PEM.finditer(low):
            got = _body_at(low, text, m.end(), 40, "private key block")
            if got is not None and _random_body("private key block", True, *got):
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


def shown(value: Any, n: int = 80) -> Any:
    """A value from untrusted input as it may be printed (an id or a place in a refusal
    list): a secret replaced by its kind, line breaks, control, bidi and invisible
    characters escaped, at most `n` characters. None stays None."""
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    findings = scan(text)
    if findings:
        return f"[hidden: {', '.join(sorted({f.kind for f in findings}))}]"
    out = "".join(
        f"\\u{ord(ch):04x}" if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") else ch for ch in text
    )
    return out if len(out) <= n else out[:n] + "…"


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
