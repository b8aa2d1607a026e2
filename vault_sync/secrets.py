"""Secret detection for the intake gate.

Findings carry only a kind and a line number, never the value or any part of
it, so logs and error messages built from them cannot leak what they guard.
"""
from __future__ import annotations

import base64
import binascii
import json
import math
import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

from .errors import Refused


@dataclass(frozen=True)
class SecretFinding:
    kind: str  # human-readable kind, e.g. "AWS access key ID"
    line: int  # 1-based line number of the start of the secret


# --- value heuristics ------------------------------------------------------

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


# changeme is a placeholder: it is a well-known default meant to be replaced,
# so it protects nothing, and flagging it would block every config template.
_PLACEHOLDER_WORDS = frozenset("""
    none null nil true false yes no undefined required optional empty blank
    changeme change_me changeit password passwd pass pwd secret token apikey
    api_key key redacted hidden masked removed placeholder example sample
    dummy fake test todo tbd string str bearer value env
""".split())
_PLACEHOLDER_RE = re.compile(
    r"^(?:<[^>]*>|\[[^\]]*\]|[*xX.•#?_-]+|%\(?\w*\)?s)$"  # <pw>, [REDACTED], ***, xxx
    r"|^\$|\$\{|\{\{|^%\w+%$"  # $VAR, ${VAR}, {{ tmpl }}, %VAR%
    r"|your[_-]?(?:own[_-]?)?(?:pass|secret|token|api|key)|example|placeholder",
    re.IGNORECASE)


def _is_placeholder(v: str) -> bool:
    return v.lower() in _PLACEHOLDER_WORDS or _PLACEHOLDER_RE.search(v) is not None


_IDENT_CHAIN = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")  # config.db.password
_BARE_WORD = re.compile(r"[A-Za-z_-]+")
_WORD_CHARS = re.compile(r"\w+")
_PROSE = re.compile(r"[A-Za-z][A-Za-z ,.'!?-]*")


def _plausible_value(v: str, quoted: bool) -> bool:
    """True if an assigned value looks like a real credential, not code/prose."""
    v = v.strip() if quoted else v.rstrip(".:!?")  # sentence punctuation
    # Under 6 chars is almost always a placeholder, flag or count in notes.
    if len(v) < 6 or _is_placeholder(v):
        return False
    if "://" in v or v.startswith(("/", "./", "~/", "@", "!", "%")):
        return False  # URLs (checked separately), paths, YAML tags, templates
    if quoted:
        # Multi-word letters-only strings are UI labels/prose ("Enter password").
        return not (" " in v and _PROSE.fullmatch(v))
    if any(c in v for c in "([{") or v.isdigit():
        return False  # call, subscript, literal collection, or a number
    if _IDENT_CHAIN.fullmatch(v) or _BARE_WORD.fullmatch(v):
        return False  # attribute access or bare identifier (token = None)
    if "_" in v and _WORD_CHARS.fullmatch(v) and not _looks_random(v):
        return False  # snake_case identifier like token_v2
    return True


# --- rules -----------------------------------------------------------------

Check = Optional[Callable[[re.Match], bool]]


def _jwt_header_ok(m: re.Match) -> bool:
    head = m.group(0).split(".", 1)[0]
    try:
        obj = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    except (binascii.Error, ValueError):
        return False
    return isinstance(obj, dict) and "alg" in obj


def _body_random(group: int = 1, min_len: int = 16) -> Callable[[re.Match], bool]:
    return lambda m: _looks_random(m.group(group), min_len)


def _random_letters(m: re.Match) -> bool:
    # Random letters are ~half upper case; CamelCase identifiers are far less.
    s = m.group(1)
    return 0.25 <= sum(c.isupper() for c in s) / len(s) <= 0.75 and _entropy(s) > 3.5


def _slack_token(m: re.Match) -> bool:
    return sum(c.isdigit() for c in m.group(1)) >= 4


def _slack_hook(m: re.Match) -> bool:
    return len(set(m.group(0).rsplit("/", 1)[-1])) > 4  # not T000/B000/XXXXXXXX


def _aws_secret(m: re.Match) -> bool:
    return "EXAMPLE" not in m.group(1) and _entropy(m.group(1)) > 3.5


def _aws_key_id(m: re.Match) -> bool:
    return "EXAMPLE" not in m.group(0)  # AWS's own documented example keys


# (kind, pre-check substrings, pattern, extra check).  Ordered by priority:
# when spans overlap (`token = ghp_...`) only the earlier, more specific
# rule reports.
# Patterns start with literals where possible so `re` can skip ahead fast;
# word boundaries are checked in code for the same reason.
_RULES: list[tuple[str, tuple[str, ...], re.Pattern[str], Check]] = [
    ("GCP service account private key", (), re.compile(
        r'"private_key"\s*:\s*"-----BEGIN [A-Z ]*PRIVATE KEY-----(?:\\n)?[A-Za-z0-9+/=]{40}'), None),
    ("private key block", (), re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,400}?[A-Za-z0-9+/=]{40}"), None),
    ("AWS access key ID", ("akia", "asia"), re.compile(r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])"), _aws_key_id),
    ("AWS secret access key", ("aws",), re.compile(
        r"(?i)aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"),
     _aws_secret),
    ("Google API key", (), re.compile(r"AIza([0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])"), _body_random()),
    ("GitHub token", (), re.compile(r"gh[pousr]_([A-Za-z0-9]{36,255})(?![A-Za-z0-9])"), _body_random()),
    ("GitHub token", (), re.compile(r"github_pat_([A-Za-z0-9_]{50,255})"), _body_random()),
    ("GitLab token", (), re.compile(r"glpat-([A-Za-z0-9_-]{20,})"), _body_random(min_len=20)),
    ("Slack token", (), re.compile(r"xox[baprs]-([A-Za-z0-9-]{20,})"), _slack_token),
    ("Slack webhook URL", (), re.compile(
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}"), _slack_hook),
    ("Anthropic API key", (), re.compile(r"sk-ant-([A-Za-z0-9_-]{32,})"), _body_random()),
    ("OpenRouter API key", (), re.compile(r"sk-or-v1-([0-9a-f]{64})"), None),
    # Plain sk- also covers OpenAI-compatible providers (DeepSeek, Moonshot...).
    ("OpenAI API key", (), re.compile(r"sk-(?:proj-|svcacct-|admin-)?([A-Za-z0-9_-]{20,})"), _body_random(min_len=20)),
    ("Stripe secret key", ("k_live_",), re.compile(r"[rs]k_live_([A-Za-z0-9]{20,})"), _body_random()),
    ("Hugging Face token", (), re.compile(r"hf_([A-Za-z0-9]{30,})(?![A-Za-z0-9])"), _random_letters),
    ("Groq API key", (), re.compile(r"gsk_([A-Za-z0-9]{48,})"), _body_random()),
    ("Replicate API token", (), re.compile(r"r8_([A-Za-z0-9]{30,})"), _body_random()),
    ("xAI API key", (), re.compile(r"xai-([A-Za-z0-9]{70,})"), _body_random()),
    ("Perplexity API key", (), re.compile(r"pplx-([A-Za-z0-9]{40,})"), _body_random()),
    ("LangSmith API key", (), re.compile(r"lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}"), None),
    ("JSON Web Token", ("eyj",), re.compile(
        r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{16,}"), _jwt_header_ok),
]

# Anchored on "://" (a literal) so the scan is fast; scheme is read backwards.
_URL_CREDS = re.compile(r"://([^\s:/@?#'\"<>]*):([^\s/@?#'\"<>]+)@[A-Za-z0-9\[]")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*$")
_SCHEME_KINDS = {
    "postgres": "PostgreSQL connection string", "postgresql": "PostgreSQL connection string",
    "mysql": "MySQL connection string", "mariadb": "MySQL connection string",
    "mongodb": "MongoDB connection string", "redis": "Redis connection string",
    "rediss": "Redis connection string", "amqp": "AMQP connection string",
    "amqps": "AMQP connection string",
}

# Keywords are matched against lower-cased text (much faster than re.I).
_ASSIGN_SRC = (
    r"(passw(?:or)?d|pwd|passphrase|secret(?:[_-]?key)?|token|api[_-]?key|apikey"
    r"|access[_-]?key|private[_-]?key)"
    r"[\"'`]?\]?(?:\*\*)?[ \t]*(?:::?|:?=(?!=)|=>)[ \t]*(?:\*\*)?[ \t]*"
    r"(?:\"([^\"\n]*)\"|'([^'\n]*)'|`([^`\n]*)`|([^\s\"'`,;&)\]}*<>]+|<[^>\s]*>))")
_ASSIGN = re.compile(_ASSIGN_SRC)
_ASSIGN_I = re.compile(_ASSIGN_SRC, re.IGNORECASE)
_ASSIGN_ROOTS = ("pass", "pwd", "secret", "token", "api", "access", "private")


def _find_all(haystack: str, needles: tuple[str, ...]):
    for needle in needles:
        i = haystack.find(needle)
        while i >= 0:
            yield i
            i = haystack.find(needle, i + 1)


def _assign_kind(key: str) -> str:
    key = key.lower()
    if "pass" in key or key == "pwd":
        return "password assignment"
    if key == "token":
        return "token assignment"
    if key.startswith(("api", "access")):
        return "API key assignment"
    return "secret assignment"


_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def find_secrets(text: str) -> list[SecretFinding]:
    """Return every secret found in ``text``, ordered by position."""
    hits: list[tuple[int, int, str]] = []  # (start, end, kind), sorted, disjoint

    def add(start: int, end: int, kind: str) -> None:
        # Hits are disjoint, so only the neighbours can overlap the new span.
        i = bisect_left(hits, (start,))
        if (i and hits[i - 1][1] > start) or (i < len(hits) and hits[i][0] < end):
            return
        hits.insert(i, (start, end, kind))

    low = text.lower()
    for kind, hints, pattern, check in _RULES:
        if hints and not any(h in low for h in hints):
            continue  # cheap pre-check for the few patterns re cannot skip through fast
        for m in pattern.finditer(text):
            start = m.start()
            if start and text[start - 1] in _ALNUM and not kind.startswith(("GCP", "private")):
                continue  # prefix glued to a longer word, e.g. "mask-..." or "XAKIA..."
            if check is None or check(m):
                add(start, m.end(), kind)

    if "://" in text:
        for m in _URL_CREDS.finditer(text):
            user, pwd = m.group(1), m.group(2)
            scheme = _SCHEME.search(text, max(0, m.start() - 40), m.start())
            # user == password is a well-known default pair (guest:guest), not a secret.
            if scheme is None or _is_placeholder(pwd) or pwd == user:
                continue
            base = scheme.group(0).lower().split("+", 1)[0]
            add(scheme.start(), m.end(), _SCHEME_KINDS.get(base, "URL with embedded credentials"))

    # lower() keeps offsets unless a char expands (e.g. "İ"); then use re.I.
    if len(low) == len(text):
        # str.find per keyword root is far faster than scanning with an alternation.
        matches = (_ASSIGN.match(low, i) for i in _find_all(low, _ASSIGN_ROOTS))
    else:
        matches = _ASSIGN_I.finditer(text)
    for m in matches:
        if m is None:
            continue
        g = m.lastindex  # the value group that matched (2-4 quoted, 5 bare)
        if _plausible_value(text[m.start(g):m.end(g)], quoted=g != 5):
            add(m.start(), m.end(), _assign_kind(m.group(1)))

    if not hits:
        return []
    newlines = [m.start() for m in re.finditer("\n", text)]
    return [SecretFinding(kind, bisect_right(newlines, start - 1) + 1) for start, _, kind in hits]


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
    if not findings:
        return
    kinds = ", ".join(sorted({f.kind for f in findings}))
    where = "; line " + ", ".join(str(f.line) for f in findings[:5]) if "\n" in value.strip() else ""
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
        for i, item in enumerate(value, 1):
            _check(f"{name} (item {i})", item)
    else:
        _refuse(name, str(value))
