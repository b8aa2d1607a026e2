"""The rest of the common credential formats (npm, Discord webhooks, Azure keys, Twilio,
SendGrid and the other formats peers' scanners know), each with a distinctive prefix or
shape. Each key is one long word (no spaces in it), so only words of 20 or more characters are
looked at: prose holds few, and a word is short, so the many rules here cost little.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator

from .secret_checks import Check, _body_random, _entropy, _slack_token

MIN_WORD = 20  # the shortest key here (a prefix and its body)


def _upper_random(m: re.Match[str]) -> bool:
    """Upper-case letters and digits (New Relic): varied, as generated text is."""
    return _entropy(m.group(1)) > 3.5


def _varied(group: int, min_distinct: int = 12) -> Callable[[re.Match[str]], bool]:
    """A generated part has many distinct characters; a placeholder (xxxx, 0000) has few."""
    return lambda m: len(set(m.group(group))) >= min_distinct


def _azure_sas(m: re.Match[str]) -> bool:
    # a SAS signature comes with its version (sv=) in the same query or connection string
    before = m.string[max(0, m.start() - 600) : m.start()]
    return "sv=" in before and len(set(m.group(1))) >= 12


# (kind, pre-check substrings of the lower-cased run, or of the run as written when one
# holds an upper-case letter, pattern, extra check)
RULES: list[tuple[str, tuple[str, ...], re.Pattern[str], Check]] = [
    ("Slack token", ("xapp-",), re.compile(r"xapp-\d-([A-Za-z0-9-]{20,})"), _slack_token),
    (
        "GitLab token",
        tuple(f"gl{p}-" for p in ("dt", "rt", "ptt", "ft", "soat", "cbt", "oas", "imt", "agent")),
        re.compile(r"gl(?:dt|rt|ptt|ft|soat|cbt|oas|imt|agent)-([A-Za-z0-9_-]{20,})"),
        _body_random(min_len=20),
    ),
    (
        "Stripe secret key",
        ("k_test_", "k_prod_"),
        re.compile(r"[rs]k_(?:test|prod)_([A-Za-z0-9]{20,})"),
        _body_random(),
    ),
    ("npm access token", ("npm_",), re.compile(r"npm_([A-Za-z0-9]{36})(?![A-Za-z0-9])"), _body_random()),
    (
        "Discord webhook URL",
        ("discord",),
        re.compile(
            r"https?://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/(?:v\d+/)?webhooks/\d{17,20}/([A-Za-z0-9_-]{60,68})"
        ),
        _varied(1),
    ),
    (
        "Azure SAS token",
        ("sig=",),
        re.compile(r"(?<=[?&;])sig=((?:[A-Za-z0-9+/]|%2[bBfF]){40,}(?:%3[dD]|=){0,2})"),
        _azure_sas,
    ),
    (
        "Azure AD client secret",
        ("q~",),
        re.compile(r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~([A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])"),
        _varied(1),
    ),
    ("Twilio API key", ("SK",), re.compile(r"SK([0-9a-f]{32})(?![0-9A-Za-z])"), _body_random()),
    (
        "SendGrid API key",
        ("SG.",),
        re.compile(r"SG\.[A-Za-z0-9_-]{22}\.([A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])"),
        _body_random(),
    ),
    ("Mailgun API key", ("key-",), re.compile(r"key-([0-9a-f]{32})(?![0-9A-Za-z])"), _body_random()),
    ("Mailchimp API key", ("-us",), re.compile(r"(?<![0-9a-f])([0-9a-f]{32})-us\d{1,2}(?![0-9])"), _body_random()),
    ("Google OAuth client secret", ("GOCSPX-",), re.compile(r"GOCSPX-([A-Za-z0-9_-]{28})"), _body_random()),
    ("Google OAuth access token", ("ya29.",), re.compile(r"ya29\.([A-Za-z0-9_-]{30,})"), _body_random()),
    ("Shopify token", ("shp",), re.compile(r"shp(?:at|ca|pa|ss)_([a-fA-F0-9]{32})(?![0-9A-Za-z])"), _body_random()),
    ("PyPI upload token", ("pypi-",), re.compile(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"), None),
    ("Docker Hub token", ("dckr_",), re.compile(r"dckr_pat_([A-Za-z0-9_-]{27,})"), _body_random(min_len=20)),
    ("DigitalOcean token", ("_v1_",), re.compile(r"do[opr]_v1_([a-f0-9]{64})(?![0-9A-Za-z])"), _body_random()),
    ("Databricks token", ("dapi",), re.compile(r"dapi([a-f0-9]{32})(?:-\d)?(?![0-9A-Za-z])"), _body_random()),
    ("HashiCorp Vault token", ("hvs.", "hvb."), re.compile(r"hv[sb]\.([A-Za-z0-9_-]{24,})"), _body_random()),
    (
        "Terraform Cloud token",
        ("atlasv1",),
        re.compile(r"[A-Za-z0-9]{14}\.atlasv1\.([A-Za-z0-9_=-]{60,70})"),
        _body_random(),
    ),
    ("Linear API key", ("lin_api_",), re.compile(r"lin_api_([A-Za-z0-9]{40})(?![A-Za-z0-9])"), _body_random()),
    ("Notion token", ("ntn_",), re.compile(r"ntn_([0-9]{11}[A-Za-z0-9]{35})(?![A-Za-z0-9])"), _body_random()),
    ("Notion token", ("secret_",), re.compile(r"secret_([A-Za-z0-9]{43})(?![A-Za-z0-9])"), _body_random()),
    ("Postman API key", ("PMAK-",), re.compile(r"PMAK-[a-f0-9]{24}-([a-f0-9]{34})(?![0-9A-Za-z])"), _body_random()),
    (
        "Telegram bot token",
        (":aa",),
        re.compile(r"(?<![0-9])\d{8,10}:AA([A-Za-z0-9_-]{33})(?![A-Za-z0-9_-])"),
        _body_random(),
    ),
    ("Sentry token", ("sntry",), re.compile(r"sntry[su]_([A-Za-z0-9_=+/-]{40,})"), _body_random()),
    ("Grafana token", ("glsa_", "glc_"), re.compile(r"gl(?:sa|c)_([A-Za-z0-9_=+/-]{32,})"), _body_random()),
    ("New Relic API key", ("NRAK-",), re.compile(r"NRAK-([A-Z0-9]{27})(?![A-Za-z0-9])"), _upper_random),
    (
        "age secret key",
        ("AGE-SECRET-KEY",),
        re.compile(r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
        None,
    ),
    ("Square token", ("sq0",), re.compile(r"sq0(?:atp|csp)-([A-Za-z0-9_-]{22,43})"), _body_random()),
    ("Atlassian API token", ("ATATT3",), re.compile(r"ATATT3([A-Za-z0-9_=-]{150,})"), _body_random()),
    ("Doppler token", ("dp.",), re.compile(r"dp\.(?:pt|st|sa|ct|scim|audit)\.([A-Za-z0-9]{40,44})"), _body_random()),
    ("Pulumi token", ("pul-",), re.compile(r"pul-([a-f0-9]{40})(?![0-9A-Za-z])"), _body_random()),
    ("Supabase token", ("sbp_",), re.compile(r"sbp_([a-f0-9]{40})(?![0-9A-Za-z])"), _body_random()),
    ("Supabase token", ("sb_secret_",), re.compile(r"sb_secret_([A-Za-z0-9_-]{30,})"), _body_random()),
    ("Mapbox secret token", ("sk.eyj",), re.compile(r"sk\.eyJ[A-Za-z0-9_-]{20,}\.([A-Za-z0-9_-]{20,})"), None),
    ("Twitter bearer token", ("a" * 20,), re.compile(r"A{22}([A-Za-z0-9%]{80,})"), _body_random()),
]


def _hint_pattern(upper: bool) -> re.Pattern[str]:
    hints = {h for _, hs, _, _ in RULES for h in hs if (h != h.lower()) == upper}
    return re.compile("|".join(re.escape(h) for h in sorted(hints, key=len, reverse=True)))


# every prefix in one pattern per case: a word holding none (most long words: ids, dates,
# URLs) costs two searches, not one per rule
_HINTS_LOW = _hint_pattern(upper=False)
_HINTS_UP = _hint_pattern(upper=True)
_BY_HINT = {h: [rule for rule in RULES if h in rule[1]] for _, hs, _, _ in RULES for h in hs}


def find(text: str) -> Iterator[tuple[int, int, str, re.Match[str]]]:
    """(start, end, kind, match) of each format found. Every format's key is one word of 20
    or more characters (a URL or a key=value pair without spaces included): only such words
    are looked at, each against the rules whose prefix it holds."""
    words = [w for w in text.split() if len(w) >= MIN_WORD]
    joined = "\n".join(words)
    if not words or (_HINTS_LOW.search(joined.lower()) is None and _HINTS_UP.search(joined) is None):
        return  # the common case: no long word holds a prefix
    cursor = 0
    for word in words:
        start = text.find(word, cursor)
        cursor = start + len(word)
        hints = {*_HINTS_LOW.findall(word.lower()), *_HINTS_UP.findall(word)}
        if not hints:
            continue
        seen: set[str] = set()
        for kind, _, pattern, check in (rule for h in hints for rule in _BY_HINT[h]):
            if pattern.pattern in seen:
                continue
            seen.add(pattern.pattern)
            for m in pattern.finditer(text, start, cursor):
                if check is None or check(m):
                    yield m.start(), m.end(), kind, m
