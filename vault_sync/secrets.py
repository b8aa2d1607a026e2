"""Secret detection for the intake gate.

Findings carry only a kind and a line number, never the value or any part of
it, so logs and error messages built from them cannot leak what they guard.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Iterator

from .mdlinks import NextOf
from .secret_checks import Check, _body_random, _entropy, _looks_random, _slack_token
from .secret_formats import find as find_formats


@dataclass(frozen=True)
class SecretFinding:
    kind: str  # human-readable kind, e.g. "AWS access key ID"
    line: int  # 1-based line number of the start of the secret


# --- value heuristics ------------------------------------------------------


# changeme is a placeholder: it is a well-known default meant to be replaced,
# so it protects nothing, and flagging it would block every config template.
_PLACEHOLDER_WORDS = frozenset(
    """
    none null nil true false yes no undefined required optional empty blank
    changeme change_me changeit password passwd pass pwd secret token apikey
    api_key key redacted hidden masked removed placeholder example sample
    dummy fake test todo tbd string str bearer value env
""".split()
)
_PLACEHOLDER_RE = re.compile(
    r"^(?:<[^>]*>|\[[^\]]*\]|[*xX.•#?_-]+|%\(?\w*\)?s)$"  # <pw>, [REDACTED], ***, xxx
    r"|^\$|\$\{|\{\{|^%\w+%$"  # $VAR, ${VAR}, {{ tmpl }}, %VAR%
    r"|your[_-]?(?:own[_-]?)?(?:pass|secret|token|api|key)|example|placeholder",
    re.IGNORECASE,
)


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
    if len(v) < 6:
        return False
    if "://" in v or v.startswith(("/", "./", "~/", "@", "!", "%")):
        return False  # URLs (checked separately), paths, YAML tags, templates
    if not quoted and (any(c in v for c in "([{") or v.isdigit()):
        return False  # call, subscript, literal collection, or a number
    if _is_placeholder(v):  # the costly check last (every check here only refuses)
        return False
    if quoted:
        # Multi-word letters-only strings are UI labels/prose ("Enter password").
        return not (" " in v and _PROSE.fullmatch(v))
    if _IDENT_CHAIN.fullmatch(v) or _BARE_WORD.fullmatch(v):
        return False  # attribute access or bare identifier (token = None)
    if "_" in v and _WORD_CHARS.fullmatch(v) and not _looks_random(v):
        return False  # snake_case identifier like token_v2
    return True


# --- rules -----------------------------------------------------------------


def _jwt_header_ok(m: re.Match[str]) -> bool:
    head = m.group(0).split(".", 1)[0]
    try:
        obj = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    except (binascii.Error, ValueError):
        return False
    return isinstance(obj, dict) and "alg" in obj


def _random_letters(m: re.Match[str]) -> bool:
    # Random letters are ~half upper case; CamelCase identifiers are far less.
    s = m.group(1)
    letters = sum(c.isalpha() for c in s)  # digits are neither case
    return letters > 0 and 0.25 <= sum(c.isupper() for c in s) / letters <= 0.75 and _entropy(s) > 3.5


def _slack_hook(m: re.Match[str]) -> bool:
    return len(set(m.group(0).rsplit("/", 1)[-1])) > 4  # not T000/B000/XXXXXXXX


def _aws_secret(m: re.Match[str]) -> bool:
    return "EXAMPLE" not in m.group(1) and _entropy(m.group(1)) > 3.5


def _aws_key_id(m: re.Match[str]) -> bool:
    return "EXAMPLE" not in m.group(0)  # AWS's own documented example keys


# (kind, pre-check substrings, pattern, extra check).  Ordered by priority:
# when spans overlap (`token = ghp_...`) only the earlier, more specific
# rule reports.
# Patterns start with literals where possible so `re` can skip ahead fast;
# word boundaries are checked in code for the same reason.
_RULES: list[tuple[str, tuple[str, ...], re.Pattern[str], Check]] = [
    (
        "GCP service account private key",
        (),
        re.compile(r'"private_key"\s*:\s*"-----BEGIN [A-Z ]*PRIVATE KEY-----(?:\\n)?[A-Za-z0-9+/=]{40}'),
        None,
    ),
    (
        "private key block",
        (),
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,400}?[A-Za-z0-9+/=]{40}"),
        None,
    ),
    ("AWS access key ID", ("akia", "asia"), re.compile(r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])"), _aws_key_id),
    (
        "AWS secret access key",
        ("aws",),
        re.compile(r"(?i)aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"),
        _aws_secret,
    ),
    # a key=value with spaces around the = is several words: looked for in the whole text
    (
        "Azure storage account key",
        ("accountkey",),
        re.compile(r"(?i:AccountKey)\s*=\s*([A-Za-z0-9+/]{86}==)"),
        lambda m: len(set(m.group(1))) >= 12,
    ),
    (
        "Azure shared access key",
        ("sharedaccesskey",),
        re.compile(r"(?i:SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{42,43}=)"),
        lambda m: len(set(m.group(1))) >= 12,
    ),
    ("Google API key", (), re.compile(r"AIza([0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])"), _body_random()),
    ("GitHub token", (), re.compile(r"gh[pousr]_([A-Za-z0-9]{36,255})(?![A-Za-z0-9])"), _body_random()),
    ("GitHub token", (), re.compile(r"github_pat_([A-Za-z0-9_]{50,255})"), _body_random()),
    ("GitLab token", (), re.compile(r"glpat-([A-Za-z0-9_-]{20,})"), _body_random(min_len=20)),
    ("Slack token", (), re.compile(r"xox[baprs]-([A-Za-z0-9-]{20,})"), _slack_token),
    (
        "Slack webhook URL",
        (),
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}"),
        _slack_hook,
    ),
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
    (
        "JSON Web Token",
        ("eyj",),
        re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{16,}"),
        _jwt_header_ok,
    ),
]

# Anchored on "://" (a literal) so the scan is fast; scheme is read backwards.
_URL_CREDS = re.compile(r"://([^\s:/@?#'\"<>]*):([^\s/@?#'\"<>]+)@[A-Za-z0-9\[]")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*$")
_SCHEME_KINDS = {
    "postgres": "PostgreSQL connection string",
    "postgresql": "PostgreSQL connection string",
    "mysql": "MySQL connection string",
    "mariadb": "MySQL connection string",
    "mongodb": "MongoDB connection string",
    "redis": "Redis connection string",
    "rediss": "Redis connection string",
    "amqp": "AMQP connection string",
    "amqps": "AMQP connection string",
}

# Keywords are matched against lower-cased text (much faster than re.I). A key, what may
# follow it, an operator and blanks, then a value:
#   (KEY)["'`]?\]?(?:\*\*)?[ \t]*(?:::?|:?=(?!=)|=>)[ \t]*(?:\*\*)?[ \t]*
#   (?:"([^"\n]*)"|'([^'\n]*)'|`([^`\n]*)`|([^\s"'`,;&)\]}*<>]+|<[^>\s]*>))
# as one regex this read, from every key in "token=token=token=...", to the run's end; the
# value is read here by `_Assignments`, which finds each value's end once.
_KEY_SRC = (
    r"(passw(?:or)?d|pwd|passphrase|secret(?:[_-]?key)?|token|api[_-]?key|apikey"
    r"|access[_-]?key|private[_-]?key)"
    r"[\"'`]?\]?(?:\*\*)?[ \t]*"
)
_KEY = re.compile(_KEY_SRC)
_KEY_I = re.compile(_KEY_SRC, re.IGNORECASE)
MAX_VALUE = 256  # an assigned value is judged on this many characters (a key is far shorter)
_ASSIGN_ROOTS = ("pass", "pwd", "secret", "token", "api", "access", "private")
_BLANKS = re.compile(r"[ \t]*")
_BARE = re.compile(r"[^\s\"'`,;&)\]}*<>]")
_BARE_END = re.compile(r"[\s\"'`,;&)\]}*<>]")
_QUOTE_END = {'"': re.compile(r'["\n]'), "'": re.compile(r"['\n]"), "`": re.compile(r"[`\n]")}
_QUOTE_GROUP = {'"': 2, "'": 3, "`": 4}
_ANGLE_END = re.compile(r"[>\s]")


def _after(pattern: re.Pattern[str], text: str, pos: int, endpos: int | None = None) -> int:
    """Where a run `pattern` (one that matches empty) read from `pos` ends."""
    m = pattern.match(text, pos) if endpos is None else pattern.match(text, pos, endpos)
    return m.end() if m else pos


# (start, end, value group: 2-4 quoted, 5 bare, value start, value end, key)
Assignment = tuple[int, int, int, int, int, str]


class _Assignments:
    """`key = value` assignments in `hay`, each read in time linear in the text overall."""

    def __init__(self, hay: str):
        self.hay, self.n = hay, len(hay)
        self.bare_end = NextOf(hay, _BARE_END)
        self.angle_end = NextOf(hay, _ANGLE_END)
        self.quote_end = {q: NextOf(hay, p) for q, p in _QUOTE_END.items()}

    def at(self, key: re.Match[str] | None) -> Assignment | None:
        """The assignment whose key `key` matched (the operators tried in the regex's order)."""
        if key is None:
            return None
        hay, p = self.hay, key.end()
        ops = []
        if hay.startswith("::", p):
            ops.append(p + 2)
        if hay.startswith(":", p):
            ops.append(p + 1)
        if hay.startswith(":=", p) and not hay.startswith("=", p + 2):
            ops.append(p + 2)
        if hay.startswith("=", p) and not hay.startswith("=", p + 1):
            ops.append(p + 1)
        if hay.startswith("=>", p):
            ops.append(p + 2)
        for op in ops:
            v = _after(_BLANKS, hay, op)
            if hay.startswith("**", v):
                v = _after(_BLANKS, hay, v + 2)
            got = self._value(v)
            if got is not None:
                return (key.start(), got[2], got[0], got[1], got[2] if got[0] == 5 else got[2] - 1, key.group(1))
        return None

    def _value(self, v: int) -> tuple[int, int, int] | None:
        """(group, value start, match end) of a value at `v`."""
        if v >= self.n:
            return None
        c = self.hay[v]
        if c in _QUOTE_GROUP:
            close = self.quote_end[c](v + 1)
            return (_QUOTE_GROUP[c], v + 1, close + 1) if close < self.n and self.hay[close] == c else None
        if c == "<":
            close = self.angle_end(v + 1)
            return (5, v, close + 1) if close < self.n and self.hay[close] == ">" else None
        if _BARE.match(self.hay, v):
            return 5, v, self.bare_end(v)
        return None


def _find_all(haystack: str, needles: tuple[str, ...]) -> Iterator[int]:
    for needle in needles:
        i = haystack.find(needle)
        while i >= 0:
            yield i
            i = haystack.find(needle, i + 1)


def _assignments(text: str, low: str) -> Iterator[Assignment]:
    """Every assignment the old regex found: matched at each keyword root when lower-casing
    kept the offsets (str.find per root is far faster than scanning with an alternation),
    else found left to right in `text` with re.I (a failed one leaves the next key's start)."""
    if len(low) == len(text):
        found = _Assignments(low)
        for i in _find_all(low, _ASSIGN_ROOTS):
            got = found.at(_KEY.match(low, i))
            if got is not None:
                yield got
        return
    found, pos = _Assignments(text), 0
    while True:
        key = _KEY_I.search(text, pos)
        if key is None:
            return
        got = found.at(key)
        if got is not None:
            yield got
            pos = got[1]
        else:
            pos = key.start() + 1


def _assign_kind(key: str) -> str:
    key = key.lower()
    if "pass" in key or key == "pwd":
        return "password assignment"
    if key == "token":
        return "token assignment"
    if key.startswith(("api", "access")):
        return "API key assignment"
    return "secret assignment"


# kinds found inside a longer word too: a PEM block anywhere, a bot token in its URL (.../bot<token>/)
_GLUE_OK = frozenset({"GCP service account private key", "private key block", "Telegram bot token"})
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


_TOKEN_RUN = re.compile(r"[A-Za-z0-9_-]*")


def _jwt_matches(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)` for the JWT rule, in linear time: its first part runs to the
    end of a run of token characters, so when it fails at one "eyJ" it fails at every later
    one in that run (the regex tried each, reading to the run's end: "eyJ" * 30000 took 7 s)."""
    pos = 0
    while True:
        start = text.find("eyJ", pos)
        if start < 0:
            return
        m = pattern.match(text, start)
        if m is not None:
            yield m
            pos = m.end()
        else:
            pos = _after(_TOKEN_RUN, text, start)


def find_secrets(text: str) -> list[SecretFinding]:
    """Return every secret found in ``text``, ordered by position."""
    hits: list[tuple[int, int, str]] = []  # (start, end, kind), sorted, disjoint

    def free(start: int, end: int) -> int:
        """Where a hit on [start, end) goes in `hits`, -1 if it overlaps one."""
        # Hits are disjoint, so only the neighbours can overlap the new span.
        i = bisect_left(hits, (start,))
        return -1 if (i and hits[i - 1][1] > start) or (i < len(hits) and hits[i][0] < end) else i

    def add(start: int, end: int, kind: str) -> None:
        i = free(start, end)
        if i >= 0:
            hits.insert(i, (start, end, kind))

    low = text.lower()
    for kind, hints, pattern, check in _RULES:
        if hints and not any(h in low for h in hints):
            continue  # cheap pre-check for the few patterns re cannot skip through fast
        for m in _jwt_matches(pattern, text) if kind == "JSON Web Token" else pattern.finditer(text):
            start = m.start()
            if start and text[start - 1] in _ALNUM and kind not in _GLUE_OK:
                continue  # prefix glued to a longer word, e.g. "mask-..." or "XAKIA..."
            if check is None or check(m):
                add(start, m.end(), kind)

    for start, end, kind, _ in find_formats(text):  # the rest of the common formats (secret_formats.py)
        if not (start and text[start - 1] in _ALNUM and kind not in _GLUE_OK):
            add(start, end, kind)

    if "://" in text:
        for m in _URL_CREDS.finditer(text):
            user, pwd = m.group(1), m.group(2)
            scheme = _SCHEME.search(text, max(0, m.start() - 40), m.start())
            # user == password is a well-known default pair (guest:guest), not a secret.
            if scheme is None or _is_placeholder(pwd) or pwd == user:
                continue
            base = scheme.group(0).lower().split("+", 1)[0]
            add(scheme.start(), m.end(), _SCHEME_KINDS.get(base, "URL with embedded credentials"))

    # lower() keeps offsets unless a char expands (e.g. "İ"); then re.I, left to right.
    for start, end, g, vs, ve, key in _assignments(text, low):
        # only a value that would count is judged, on its first characters: in
        # "token=(token=(..." each value runs to the end and holds the next
        if free(start, end) >= 0 and _plausible_value(text[vs : min(ve, vs + MAX_VALUE)], quoted=g != 5):
            add(start, end, _assign_kind(key))

    if not hits:
        return []
    newlines = [m.start() for m in re.finditer("\n", text)]
    return [SecretFinding(kind, bisect_right(newlines, start - 1) + 1) for start, _, kind in hits]
