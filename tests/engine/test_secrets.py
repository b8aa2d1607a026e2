"""Tests for vault_sync.secrets.

Every fake secret is assembled at import time from a seeded RNG and split
prefixes, so this file never contains anything a secret scanner would flag.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import random
import string

import pytest

from vault_sync.secrets import SecretFinding, find_secrets

_RNG = random.Random(20240607)
ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"


def rand(n: int, alphabet: str = ALNUM) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def tok(n: int, alphabet: str = ALNUM) -> str:
    """Random token guaranteed to contain a digit and both letter cases."""
    return "Q7z" + rand(n - 3, alphabet)


def b64url(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


def pem(label: str, headers: str = "") -> str:
    body = "\n".join(rand(64, B64) for _ in range(4))
    dashes = "-" * 5
    return f"{dashes}BEGIN {label}{dashes}\n{headers}{body}\n{dashes}END {label}{dashes}"


PK = "PRIVATE" + " KEY"
_JWT = b64url({"alg": "HS256", "typ": "JWT"}) + "." + b64url({"sub": "42", "name": "Ada"}) + "." + tok(43, B64URL)
_GCP_KEY = "-----BEGIN " + PK + "-----\\n" + rand(64, B64) + "\\n" + rand(64, B64) + "\\n-----END " + PK + "-----\\n"
_GCP = json.dumps({"type": "service_account", "project_id": "demo", "private_key_id": rand(40, HEX)})[:-1]
_GCP += ', "private_key": "' + _GCP_KEY + '", "client_email": "svc@demo.iam.gserviceaccount.com"}'
_PW = "Tr0ub4dor" + rand(6) + "x9"  # realistic password value

# (kind, text containing the secret, the secret itself)
POSITIVE = [
    ("AWS access key ID", "{s}", "AKIA" + rand(15, UPPER_DIGITS) + "7"),
    ("AWS access key ID", "export AWS_ACCESS_KEY_ID={s}", "AS" + "IA" + rand(15, UPPER_DIGITS) + "Q"),
    ("AWS secret access key", "aws_secret_access_key = {s}", tok(40, B64)),
    ("AWS secret access key", 'AWS_SECRET_ACCESS_KEY="{s}"', tok(40, B64)),
    ("Google API key", "maps key {s} here", "AI" + "za" + tok(35, B64URL)),
    ("GCP service account private key", "{s}", _GCP),
    ("GitHub token", "token {s}", "gh" + "p_" + tok(36)),
    ("GitHub token", "{s}", "gh" + "o_" + tok(36)),
    ("GitHub token", "{s}", "gh" + "u_" + tok(36)),
    ("GitHub token", "{s}", "gh" + "s_" + tok(36)),
    ("GitHub token", "{s}", "gh" + "r_" + tok(36)),
    ("GitHub token", "{s}", "github" + "_pat_" + tok(22) + "_" + tok(59)),
    ("GitLab token", "CI token: {s}", "gl" + "pat-" + tok(20, B64URL)),
    ("Slack token", "{s}", "xo" + "xb-" + rand(12, string.digits) + "-" + rand(13, string.digits) + "-" + tok(24)),
    ("Slack token", "{s}", "xo" + "xp-" + rand(12, string.digits) + "-" + rand(12, string.digits) + "-" + tok(32)),
    ("Slack token", "{s}", "xo" + "xa-2-" + rand(12, string.digits) + "-" + tok(30)),
    (
        "Slack webhook URL",
        "post to {s}",
        "https://hooks.slack"
        + ".com/services/T"
        + rand(8, UPPER_DIGITS)
        + "/B"
        + rand(8, UPPER_DIGITS)
        + "/"
        + tok(24),
    ),
    ("OpenAI API key", "OPENAI key {s}", "s" + "k-" + tok(48)),
    ("OpenAI API key", "{s}", "s" + "k-proj-" + tok(120, B64URL)),
    ("Anthropic API key", "{s}", "s" + "k-ant-api03-" + tok(93, B64URL) + "AA"),
    ("OpenRouter API key", "{s}", "s" + "k-or-v1-" + rand(64, HEX)),
    ("Stripe secret key", "{s}", "sk" + "_live_" + tok(24)),
    ("Stripe secret key", "{s}", "rk" + "_live_" + tok(99)),
    ("Hugging Face token", "HF {s}", "h" + "f_" + "QzWx" + rand(30, string.ascii_letters)),
    ("Groq API key", "{s}", "g" + "sk_" + tok(52)),
    ("Replicate API token", "{s}", "r" + "8_" + tok(37)),
    ("xAI API key", "{s}", "x" + "ai-" + tok(80)),
    ("Perplexity API key", "{s}", "pp" + "lx-" + tok(48)),
    ("LangSmith API key", "{s}", "ls" + "v2_pt_" + rand(32, HEX) + "_" + rand(10, HEX)),
    ("private key block", "{s}", pem(PK)),
    ("private key block", "{s}", pem("RSA " + PK)),
    ("private key block", "{s}", pem("EC " + PK)),
    ("private key block", "{s}", pem("OPENSSH " + PK)),
    ("private key block", "{s}", pem("ENCRYPTED " + PK)),
    ("private key block", "{s}", pem("PGP " + PK + " BLOCK", "Version: GnuPG v2\n\n")),
    ("JSON Web Token", "Authorization: Bearer {s}", _JWT),
    ("password assignment", "password={s}", _PW),
    ("password assignment", "password: {s}", _PW),
    ("password assignment", 'PASSWORD="{s}"', _PW),
    ("password assignment", "db_passwd = '{s}'", _PW),
    ("password assignment", "pwd: {s}", _PW),
    ("password assignment", "password:: {s}", _PW),  # Obsidian inline field
    ("password assignment", "**Password:** {s}", _PW),
    ("password assignment", "{{'password': '{s}'}}", "hunter2"),
    ("API key assignment", '{{"api_key": "{s}"}}', tok(32)),
    ("API key assignment", "apiKey: `{s}`", tok(32)),
    ("secret assignment", "client_secret: {s}", tok(32, B64URL)),
    ("secret assignment", "SECRET_KEY = '{s}'", "django-" + tok(40, B64URL)),
    ("token assignment", "auth_token = {s}", tok(40)),
    ("PostgreSQL connection string", "DATABASE_URL={s}", "postgres://app:" + _PW + "@db.internal:5432/app"),
    ("PostgreSQL connection string", "{s}", "postgresql+psycopg2://app:" + _PW + "@db/app"),
    ("MySQL connection string", "{s}", "mysql://root:" + _PW + "@127.0.0.1:3306/shop"),
    ("MongoDB connection string", "{s}", "mongodb+srv://svc:" + _PW + "@cluster0.mongodb.net/x"),
    ("Redis connection string", "{s}", "redis://:" + _PW + "@cache:6379/0"),
    ("AMQP connection string", "{s}", "amqp://worker:" + _PW + "@rabbit:5672/"),
    ("URL with embedded credentials", "clone {s}", "https://deploy:" + _PW + "@git.example.org/repo.git"),
]


def _secret_value(kind: str, secret: str) -> str:
    # For URLs the sensitive part is the password; elsewhere the whole token.
    return _PW if "connection string" in kind or "credentials" in kind else secret


@pytest.mark.parametrize(
    ("kind", "template", "secret"), POSITIVE, ids=[f"{k}-{i}" for i, (k, *_) in enumerate(POSITIVE)]
)
def test_detects_kind_without_leaking(kind, template, secret):
    text = "# Notes\n" + template.format(s=secret) + "\nthe end\n"
    findings = find_secrets(text)
    assert [f.kind for f in findings] == [kind]
    assert findings[0].line == 2
    value = _secret_value(kind, secret)
    for f in findings:
        for rendered in (str(f), repr(f), f.kind, str(f.line)):
            assert value not in rendered
            assert value[-8:] not in rendered
        assert {fld.name for fld in dataclasses.fields(f)} == {"kind", "line"}


NEGATIVE = [
    "Remember to rotate the password every 90 days.",
    "The password field is required.",
    "Password: see the team vault.",
    "Token: expires after 5 minutes.",
    "Secret: the answer is 42.",
    "password_hash = bcrypt.hashpw(pw, salt)",
    "token = get_token()",
    'api_key = os.environ["API_KEY"]',
    "api_key = os.getenv('API_KEY')",
    "token = None",
    "password = password",
    "password: str | None = None",
    "api_key: Optional[str] = None",
    "self.password = config.db.password",
    "const token = process.env.API_TOKEN;",
    "max_tokens: 4096",
    "token: 4096",
    "if password == stored_password:",
    "password=",
    'password=""',
    "password=<password>",
    "password: ***",
    "password: xxxxxxxx",
    "PASSWORD=${DB_PASSWORD}",
    "PASSWORD=$DB_PASSWORD",
    'password: "{{ vault_db_password }}"',
    "password: changeme",
    'api_key = "your-api-key-here"',
    "api_key = YOUR_API_KEY",
    'token: "[REDACTED]"',
    '"password": "Enter your password"',
    "pwd: /home/user/projects",
    "password: !vault |",
    "550e8400-e29b-41d4-a716-446655440000",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixes it",
    "aGVsbG8gd29ybGQgdGhpcyBpcyBqdXN0IHRleHQ=",
    "See https://example.com/docs?page=2#intro for details.",
    "https://user@host.example.com/path",
    "postgres://localhost/db",
    "postgres://user@localhost:5432/db",
    "postgres://user:password@localhost/db",
    "postgres://user:${DB_PASS}@localhost/db",
    "amqp://guest:guest@localhost:5672/",
    "redis://localhost:6379/0",
    "http://localhost:8080/api/v1",
    "# Heading\n\n- [ ] task with **bold** and `code`\n> quote",
    "Link to [[Secrets Policy]] and [[Passwords#Rotation|rotation notes]].",
    "![[diagram.png]] #security/token",
    "The skeleton-key approach and the ghost_writer module.",
    "risk-assessment-for-quarterly-planning-meeting-2024",
    "sk-learn-compatible-estimator-wrapper",
    "AKIANOTAKEYATALL is too short",
    "AKIA1234",
    "hf_TokenizerFastWrapperForSequenceModels",
    # JWT-shaped, but the header decodes to something that is not JSON.
    base64.urlsafe_b64encode(b'{"alg" HS256 oops').decode().rstrip("=")
    + "."
    + b64url({"sub": "1"})
    + "."
    + tok(43, B64URL),
    "The auth service signs JWTs with RS256.",
    "-----BEGIN RSA " + PK + "----- marks the start of a PEM file.",
    "Use AKIAIOSFODNN7EXAMPLE from the AWS docs.",
    "Our Slack bot uses xoxb tokens; our GitHub CI uses ghp tokens.",
    "Use sk_test_ keys locally and never commit sk_live_ keys.",
    "access_key_id: AKIA-like values go in the vault",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_no_false_positives(text):
    assert find_secrets(text) == []


def test_large_benign_document_has_no_findings():
    text = "\n".join(NEGATIVE) * 50
    assert find_secrets(text) == []


def test_multiple_findings_in_position_order_with_lines():
    gh = "gh" + "p_" + tok(36)
    aws = "AKIA" + rand(15, UPPER_DIGITS) + "7"
    text = f"intro\npassword: {_PW}\n\nfoo {gh} bar {aws}\n{pem(PK)}\n"
    findings = find_secrets(text)
    assert findings == [
        SecretFinding("password assignment", 2),
        SecretFinding("GitHub token", 4),
        SecretFinding("AWS access key ID", 4),
        SecretFinding("private key block", 5),
    ]


def test_token_inside_assignment_reported_once_as_specific_kind():
    gh = "gh" + "p_" + tok(36)
    assert find_secrets(f"GITHUB_TOKEN={gh}") == [SecretFinding("GitHub token", 1)]


def test_gcp_key_is_not_double_reported_as_private_key_block():
    assert [f.kind for f in find_secrets(_GCP)] == ["GCP service account private key"]


@pytest.mark.parametrize("prefix", ["", "İstanbul notes\n"])
def test_assignment_detected_with_length_changing_lowercase(prefix):
    # "İ".lower() is two code points, which exercises the re.IGNORECASE path.
    assert find_secrets(prefix + f"Password = {_PW}") == [SecretFinding("password assignment", prefix.count("\n") + 1)]


def test_prefix_glued_to_word_is_ignored():
    assert find_secrets("xAKIA" + rand(15, UPPER_DIGITS) + "7") == []
    assert find_secrets("task-" + tok(48)) == []


def test_finding_is_frozen():
    f = SecretFinding("GitHub token", 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.kind = "other"  # type: ignore[misc]


def test_empty_text():
    assert find_secrets("") == []
