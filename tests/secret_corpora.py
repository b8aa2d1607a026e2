"""Two corpora for the intake gate: keys hidden the ways a person or a tool hides them
(split by separators, lower-cased, full-width, with invisible characters inside), and
benign texts that must still save.

Every key is assembled at import time from a seeded RNG and split prefixes, so this file
holds nothing a secret scanner would flag.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
DASHES = "-" * 5
PK = "PRIVATE" + " KEY"

# invisible characters a key can carry: zero-width space/non-joiner/joiner, word joiner,
# BOM, soft hyphen, left-to-right mark, bidi embedding/override/isolate controls
INVISIBLE = [
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\u00ad",
    "\u200e",
    "\u202a",
    "\u202e",
    "\u2066",
    "\u2069",
]
SEPARATORS = [" ", ".", "-", "_", " - ", ". ", "  ", "\t"]


def keys(rng: random.Random) -> list[tuple[str, str]]:
    """(kind, key) for each kind the gate knows by prefix; fresh random bodies per call."""

    def r(n: int, alphabet: str = ALNUM) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    def b64url(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    jwt = (
        b64url({"alg": "HS256", "typ": "JWT"})
        + "."
        + b64url({"sub": r(8, string.digits), "name": "Ada"})
        + "."
        + r(43, B64URL)
    )
    pem = f"{DASHES}BEGIN {PK}{DASHES}\n" + "\n".join(r(64, B64) for _ in range(3)) + f"\n{DASHES}END {PK}{DASHES}"
    return [
        ("AWS access key ID", "AK" + "IA" + r(16, UPPER_DIGITS)),
        ("AWS access key ID", "AS" + "IA" + r(16, UPPER_DIGITS)),
        ("Google API key", "AI" + "za" + r(35, B64URL)),
        ("GitHub token", "gh" + "p_" + r(36)),
        ("GitHub token", "gh" + "s_" + r(36)),
        ("GitHub token", "github" + "_pat_" + r(22) + "_" + r(59)),
        ("GitLab token", "gl" + "pat-" + r(20)),
        ("Slack token", "xo" + "xb-" + r(12, string.digits) + "-" + r(13, string.digits) + "-" + r(24)),
        ("Stripe secret key", "sk" + "_live_" + r(24)),
        ("OpenAI API key", "s" + "k-" + r(48)),
        ("OpenAI API key", "s" + "k-proj-" + r(64)),
        ("Anthropic API key", "s" + "k-ant-api03-" + r(80)),
        ("Hugging Face token", "h" + "f_" + r(34)),
        ("Groq API key", "g" + "sk_" + r(52)),
        ("Replicate API token", "r" + "8_" + r(37)),
        ("xAI API key", "x" + "ai-" + r(80)),
        ("Perplexity API key", "pp" + "lx-" + r(48)),
        ("LangSmith API key", "ls" + "v2_pt_" + r(32, HEX) + "_" + r(10, HEX)),
        ("JSON Web Token", jwt),
        ("private key block", pem),
    ]


def _split(rng: random.Random, key: str) -> str:
    size, sep = rng.choice([2, 3, 4, 5, 6, 8]), rng.choice(SEPARATORS)
    return sep.join(key[i : i + size] for i in range(0, len(key), size))


def _full_width(key: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in key)


def _invisible(rng: random.Random, key: str) -> str:
    out = []
    for c in key:
        out.append(c)
        if rng.random() < 0.3:
            out.append(rng.choice(INVISIBLE))
    return "".join(out)


def _hide(rng: random.Random, how: str, key: str) -> str:
    for step in how.split("+"):
        key = {"lower": str.lower, "upper": str.upper, "full-width": _full_width}.get(step, lambda k: k)(key)
        if step == "split":
            key = _split(rng, key)
        elif step == "invisible":
            key = _invisible(rng, key)
    return key


WAYS = [
    "lower",
    "upper",
    "split",
    "full-width",
    "invisible",
    "split+lower",
    "split+invisible",
    "full-width+lower",
    "invisible+lower",
    "split+full-width",
]
FRAMES = [
    "{k}",
    "my key is {k} for the bot",
    "Note to self:\n{k}\nkeep it safe",
    "deploy with {k}, then restart",
    "the token ({k}) expired",
]


def obfuscated(seed: int = 23, rounds: int = 6) -> list[tuple[str, str, str]]:
    """(kind, way, text): every key kind hidden every way, `rounds` times with fresh keys."""
    rng = random.Random(seed)
    out = []
    for _ in range(rounds):
        for kind, key in keys(rng):
            for way in WAYS:
                out.append((kind, way, rng.choice(FRAMES).format(k=_hide(rng, way, key))))
    return out


PROSE = [
    "Our password policy requires 12 characters and rotation every 90 days.",
    "The rate limiter is a token bucket: 100 tokens, refilled at 10 per second.",
    "We use sk-learn 1.3 for the baseline; sk-learn 1.4 and 1.5 changed the API of 2 estimators.",
    "sk-learn-compatible-estimator-wrapper v2 is in the utils package.",
    "Switched from sk learn to torch 2.1 in Q3 2024 for 3 models.",
    "Our Slack bot uses xoxb tokens; GitHub CI uses ghp tokens with 90 day expiry.",
    "AKIA keys are access key ids; ASIA keys are temporary ones from STS.",
    "Asia trip 2024: Tokyo 3 days, Seoul 2 days, then Taipei for 4 days.",
    "asia-pacific region ap-southeast-1 hosts the 2 replica clusters.",
    "hf_hub_download caches models under ~/.cache/huggingface/hub.",
    "The header starts with eyJ because base64 of a brace is e y J.",
    "gsk stands for GlaxoSmithKline in the 2023 pharma report.",
    "r8 is the register name on x86-64; r8 to r15 were added with AMD64.",
    "xai-grok and pplx-online are model names in the router config.",
    "lsv2 of the storage layer is slower than lsv1 for 4 KB writes.",
    "GitLab personal access tokens start with glpat- followed by 20 characters.",
    "Skipping the sketch: sky-blue v2 theme ships in release 3.4.1 next week.",
    "-----BEGIN RSA " + PK + "----- marks the start of a PEM file and is followed by base64 lines.",
    "The commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the 2 failing tests.",
    "Run git show 9c1185a5c5e9fc54612808977ee8f548b2258d31 to see the change.",
    "ID 550e8400-e29b-41d4-a716-446655440000 is the staging tenant.",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 is the empty file.",
    "k8s v1.29 on ec2 m5.xlarge nodes, with 3 az and 2 node groups, python3.11 and node18.",
    "Meeting 2024-11-03 10:30 with Ana, then 14:00 with the infra team about IPv6.",
    "The password field is required, and the token expires after 5 minutes.",
    "Use the API key from the team vault; never paste the secret into chat.",
    "ghost writer, high-pressure pumps, dashboard half-finished: tasks for May.",
    "Akia is a name; Nakia and Asian markets are words, not keys.",
    "Pronunciation guide: s k i p, a s i a, g h o s t; spelled out letter by letter.",
    "Das Passwort-Richtlinien-Dokument liegt im Wiki; Token-Bucket-Algorithmus erklärt.",
    "東京のオフィスは３階です。会議は１０時から。ＰＤＦを送ります。",
    "Full-width ＡＢＣ１２３ and the word ｐａｓｓｗｏｒｄ policy in a form label.",
    "Emoji with joiners: 👩\u200d💻 and 👨\u200d👩\u200d👧 and a soft\u00adhyphen in a long word.",
    "Arabic text with a bidi mark: \u200fمرحبا\u200f and Hebrew \u200eשלום\u200e in the notes.",
    "sk-ant-style prefixes identify Anthropic keys; sk-or-v1 prefixes identify OpenRouter keys.",
    "xoxb-style bot tokens and xoxp-style user tokens have different scopes in Slack.",
    "npm_config_cache and npm_package_version are set by npm run; npm_lifecycle_event names the script.",
    "Docker Hub tokens (dckr_pat_) and Linear keys (lin_api_) go in the team vault, never in notes.",
    "shpat_ tokens are Shopify admin tokens; dop_v1_ ones are DigitalOcean personal tokens.",
]


def benign(seed: int = 5) -> list[tuple[str, str]]:
    """(name, text): the sample vault's notes, prose near key prefixes, ids and hashes."""
    rng = random.Random(seed)
    out = [
        (str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in sorted((ROOT / "sample-vault").rglob("*.md"))
    ]
    out += [(f"prose {i}", t) for i, t in enumerate(PROSE)]
    for i in range(60):
        u = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        sha1 = "".join(rng.choice(HEX) for _ in range(40))
        sha256 = "".join(rng.choice(HEX) for _ in range(64))
        out.append(
            (f"ids {i}", f"Ticket {u} was fixed in commit {sha1[:12]} ({sha1}); artefact digest sha256:{sha256}.")
        )
    return out
