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
from typing import Iterable, Iterator, Optional

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

# Keywords are matched against lower-cased text (much faster than re.I).
_ASSIGN_SRC = (
    r"(passw(?:or)?d|pwd|passphrase|secret(?:[_-]?key)?|token|api[_-]?key|apikey"
    r"|access[_-]?key|private[_-]?key)"
    r"[\"'`]?\]?(?:\*\*)?[ \t]*(?:::?|:?=(?!=)|=>)[ \t]*(?:\*\*)?[ \t]*"
    r"(?:\"([^\"\n]*)\"|'([^'\n]*)'|`([^`\n]*)`|([^\s\"'`,;&)\]}*<>]+|<[^>\s]*>))"
)
_ASSIGN = re.compile(_ASSIGN_SRC)
_ASSIGN_I = re.compile(_ASSIGN_SRC, re.IGNORECASE)
_ASSIGN_ROOTS = ("pass", "pwd", "secret", "token", "api", "access", "private")


def _find_all(haystack: str, needles: tuple[str, ...]) -> Iterator[int]:
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


# kinds found inside a longer word too: a PEM block anywhere, a bot token in its URL (.../bot<token>/)
_GLUE_OK = frozenset({"GCP service account private key", "private key block", "Telegram bot token"})
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

    # lower() keeps offsets unless a char expands (e.g. "İ"); then use re.I.
    matches: Iterable[Optional[re.Match[str]]]
    if len(low) == len(text):
        # str.find per keyword root is far faster than scanning with an alternation.
        matches = (_ASSIGN.match(low, i) for i in _find_all(low, _ASSIGN_ROOTS))
    else:
        matches = _ASSIGN_I.finditer(text)
    for am in matches:
        if am is None:
            continue
        g = am.lastindex  # the value group that matched (2-4 quoted, 5 bare)
        if g is None:
            continue  # never: a match always sets group 1 (the key)
        if _plausible_value(text[am.start(g) : am.end(g)], quoted=g != 5):
            add(am.start(), am.end(), _assign_kind(am.group(1)))

    if not hits:
        return []
    newlines = [m.start() for m in re.finditer("\n", text)]
    return [SecretFinding(kind, bisect_right(newlines, start - 1) + 1) for start, _, kind in hits]
