"""The intake gate knows the common credential formats its peers' scanners know: each is
refused with a message naming its kind and never the value, and a near miss of each (the
prefix in prose, a placeholder, too short a body) still saves.

Every key is assembled at run time from a seeded RNG and split prefixes, so this file holds
nothing a secret scanner would flag.
"""

from __future__ import annotations

import random
import string

import pytest

from vault_sync.errors import Refused
from vault_sync.ops.save import check_intake
from vault_sync.secret_gate import scan

_RNG = random.Random(20261128)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
UPPER_DIGITS = string.ascii_uppercase + string.digits
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def r(n: int, alphabet: str = ALNUM) -> str:
    """n random characters, with a digit and both cases where the alphabet has them."""
    while True:
        s = "".join(_RNG.choice(alphabet) for _ in range(n))
        wanted = [any(c.isdigit() for c in s)]
        if any(c.isupper() for c in alphabet) and any(c.islower() for c in alphabet):
            wanted += [any(c.isupper() for c in s), any(c.islower() for c in s)]
        if all(wanted):
            return s


def digits(n: int) -> str:
    return "".join(_RNG.choice(string.digits[1:]) for _ in range(n))


AZURE_KEY = r(86, B64) + "=="
# (kind, text with {k}, the key)
FORMATS = [
    ("npm access token", "publish with {k} from CI", "np" + "m_" + r(36)),
    (
        "Discord webhook URL",
        "alerts go to {k}",
        "https://discord" + ".com/api/webhooks/" + digits(18) + "/" + r(68, B64URL),
    ),
    (
        "Discord webhook URL",
        "old hook {k}",
        "https://discordapp" + ".com/api/webhooks/" + digits(19) + "/" + r(68, B64URL),
    ),
    ("Azure storage account key", "the key is {k}", "Account" + "Key=" + AZURE_KEY),
    (
        "Azure storage account key",
        "{k}",
        "DefaultEndpointsProtocol=https;AccountName=atlasdata;Account"
        + "Key="
        + AZURE_KEY
        + ";EndpointSuffix=core.windows.net",
    ),
    (
        "Azure shared access key",
        "{k}",
        "Endpoint=sb://atlas.servicebus.windows.net/;SharedAccessKeyName=Root;Shared" + "AccessKey=" + r(43, B64) + "=",
    ),
    (
        "Azure SAS token",
        "download {k}",
        "https://atlas.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&sp=r&si" + "g=" + r(43, B64) + "%3D",
    ),
    ("Azure AD client secret", "client secret {k}", r(3) + "8Q" + "~" + r(34, ALNUM + "_~.-")),
    ("Twilio API key", "twilio {k}", "S" + "K" + r(32, HEX)),
    ("SendGrid API key", "mail key {k}", "S" + "G." + r(22, B64URL) + "." + r(43, B64URL)),
    ("Mailgun API key", "mailgun {k}", "ke" + "y-" + r(32, HEX)),
    ("Mailchimp API key", "mailchimp {k}", r(32, HEX) + "-us" + "14"),
    ("Google OAuth client secret", "oauth {k}", "GOC" + "SPX-" + r(28, B64URL)),
    ("Google OAuth access token", "bearer {k}", "ya" + "29." + r(120, B64URL)),
    ("Google API key", "maps {k}", "AI" + "za" + r(35, B64URL)),
    ("GitLab token", "deploy {k}", "gl" + "dt-" + r(20, B64URL)),
    ("GitLab token", "runner {k}", "gl" + "rt-" + r(20, B64URL)),
    ("Slack token", "socket mode {k}", "xa" + "pp-1-A" + r(10, UPPER_DIGITS) + "-" + digits(13) + "-" + r(64, HEX)),
    (
        "Slack webhook URL",
        "post to {k}",
        "https://hooks.slack" + ".com/services/T" + r(8, UPPER_DIGITS) + "/B" + r(8, UPPER_DIGITS) + "/" + r(24),
    ),
    ("Stripe secret key", "stripe {k}", "sk" + "_test_" + r(24)),
    ("Stripe secret key", "stripe {k}", "rk" + "_live_" + r(24)),
    ("Shopify token", "shop {k}", "shp" + "at_" + r(32, HEX)),
    ("PyPI upload token", "twine {k}", "pyp" + "i-AgEIcHlwaS5vcmc" + r(60, B64URL)),
    ("Docker Hub token", "docker login -p {k}", "dck" + "r_pat_" + r(27, B64URL)),
    ("DigitalOcean token", "doctl {k}", "do" + "p_v1_" + r(64, HEX)),
    ("Databricks token", "databricks {k}", "da" + "pi" + r(32, HEX)),
    ("HashiCorp Vault token", "VAULT_TOKEN is {k}", "hv" + "s." + r(90, B64URL)),
    ("Terraform Cloud token", "tfc {k}", r(14) + ".atlas" + "v1." + r(67, ALNUM)),
    ("Linear API key", "linear {k}", "lin" + "_api_" + r(40)),
    ("Notion token", "notion {k}", "nt" + "n_" + digits(11) + r(35)),
    ("Postman API key", "postman {k}", "PM" + "AK-" + r(24, HEX) + "-" + r(34, HEX)),
    ("Telegram bot token", "https://api.telegram.org/bot{k}/getMe", digits(10) + ":A" + "A" + r(33, B64URL)),
    ("Sentry token", "sentry {k}", "sntr" + "yu_" + r(64, HEX)),
    ("Grafana token", "grafana {k}", "gl" + "sa_" + r(32) + "_" + r(8, HEX)),
    ("New Relic API key", "newrelic {k}", "NR" + "AK-" + r(27, UPPER_DIGITS)),
    ("age secret key", "{k}", "AGE-SECRET" + "-KEY-1" + "".join(_RNG.choice(BECH32) for _ in range(58))),
    ("Square token", "square {k}", "sq0" + "atp-" + r(22, B64URL)),
    ("Atlassian API token", "jira {k}", "ATA" + "TT3" + r(180, B64URL)),
    ("Doppler token", "doppler {k}", "dp" + ".pt." + r(43)),
    ("Pulumi token", "pulumi {k}", "pu" + "l-" + r(40, HEX)),
    ("Supabase token", "supabase {k}", "sb" + "p_" + r(40, HEX)),
    ("Hugging Face token", "hf {k}", "h" + "f_" + r(34)),
    ("Anthropic API key", "claude {k}", "s" + "k-ant-api03-" + r(80, B64URL)),
    ("OpenAI API key", "openai {k}", "s" + "k-proj-" + r(64, B64URL)),
    ("Mapbox secret token", "mapbox {k}", "s" + "k.eyJ" + r(60, B64URL) + "." + r(22, B64URL)),
    ("Twitter bearer token", "bearer {k}", "A" * 22 + r(90)),
    ("Azure storage account key", "in the portal: {k}", "Account" + "Key = " + AZURE_KEY),  # spaces around the =
    ("JSON Web Token", "auth {k}", None),  # filled below
    ("private key block", "{k}", None),
]


def _fill() -> list[tuple[str, str, str]]:
    import base64
    import json

    def b64url(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    jwt = b64url({"alg": "RS256", "typ": "JWT"}) + "." + b64url({"sub": digits(6)}) + "." + r(43, B64URL)
    dashes = "-" * 5
    pk = "PRIVATE" + " KEY"
    pem = (
        f"{dashes}BEGIN OPENSSH {pk}{dashes}\n"
        + "\n".join(r(70, B64) for _ in range(3))
        + f"\n{dashes}END OPENSSH {pk}{dashes}"
    )
    out = []
    for kind, frame, key in FORMATS:
        key = key or (jwt if kind == "JSON Web Token" else pem)
        out.append((kind, frame, key))
    return out


CASES = _fill()


@pytest.mark.parametrize("kind,frame,key", CASES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(CASES)])
def test_each_format_is_refused_naming_its_kind(kind, frame, key):
    text = frame.format(k=key) + " and then restart the service."
    assert kind in {f.kind for f in scan(text)}, text
    with pytest.raises(Refused) as err:
        check_intake(text)
    message = str(err.value)
    assert kind in message and "secret" in message
    assert key not in message and key[-12:] not in message


@pytest.mark.parametrize("kind,frame,key", CASES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(CASES)])
def test_a_short_secret_is_refused_as_a_secret(kind, frame, key):
    with pytest.raises(Refused, match="contains a secret") as err:
        check_intake(key)
    assert "too short" not in str(err.value)


NEAR_MISSES = [
    "We publish to npm_registry mirrors; npm_config_cache lives in ~/.npm on every runner.",
    "The npm token format is npm_ followed by 36 letters and digits.",
    "Discord webhooks live at discord.com/api/webhooks/<id>/<token>; ours is in the team vault.",
    "https://discord.com/api/webhooks/123456789012345678/" + "x" * 68 + " is the documented example shape.",
    "Azure connection strings look like DefaultEndpointsProtocol=https;AccountName=name;AccountKey=<key>.",
    "AccountKey=" + "A" * 86 + "== is what a blank key looks like in the template.",
    "The SAS URL needs sv, sp and sig parameters; sig=<signature> is computed by the SDK.",
    "Twilio API keys start with SK and account ids start with AC, both 34 characters long.",
    "SendGrid keys start with SG. and have three parts separated by dots.",
    "The cache key-value store holds 2 million entries, keyed by key-prefix and user id.",
    "GOCSPX- prefixes mark Google OAuth client secrets since 2021.",
    "ya29 tokens expire after one hour; refresh them with the refresh token.",
    "Shopify admin tokens start with shpat_, custom app ones with shpca_.",
    "The dapi prefix marks Databricks tokens; dapi version 2 is deprecated.",
    "hvs. tokens are Vault service tokens, hvb. batch tokens; both are short-lived here.",
    "Run terraform login to get an atlasv1 token for Terraform Cloud.",
    "Linear keys start with lin_api_, Notion integration tokens with ntn_ or secret_.",
    "Postman keys look like PMAK-<24 hex>-<34 hex>.",
    "The bot answers at https://api.telegram.org/bot<token>/getMe once the token is set.",
    "Sentry auth tokens start with sntrys_ or sntryu_; Grafana service accounts with glsa_.",
    "New Relic user keys start with NRAK-; ingest keys end with NRAL.",
    "age keys start with AGE-SECRET-KEY-1 and public keys with age1.",
    "Square access tokens start with sq0atp- and OAuth secrets with sq0csp-.",
    "Doppler service tokens look like dp.st.<env>.<random>.",
    "Pulumi access tokens start with pul- and Supabase ones with sbp_.",
    "Stripe test keys sk_test_ and live keys sk_live_ must never be mixed.",
    "GitLab deploy tokens (gldt-) and runner tokens (glrt-) are rotated monthly.",
    "Our skeleton key-ring for the office has 12 keys and one spare.",
    "Telegram group 123456789 has 40 members; ping @atlas_bot for the report.",
    "The secret_santa_assignments table has 24 rows this year.",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_still_save(text):
    assert scan(text) == [], [f.kind for f in scan(text)]
    assert check_intake(text) == text


WORST_SHAPES = {
    "npm prefixes": lambda n: ("np" + "m_") * (n // 4),
    "one long word": lambda n: "A" * n,
    "mapbox heads": lambda n: ("s" + "k.eyJ" + "a" * 30) * (n // 36),
    "a SAS signature": lambda n: "?sv=1&si" + "g=" + "a" * n,
    "Azure AD marks": lambda n: "ab18Q" + "~" * (n // 6) + "ab18Q~" * (n // 6),
    "prefixes in words": lambda n: "npm_abc SG.x key-12 AccountKey=ab " * (n // 34),
    "bot token heads": lambda n: "123456789:AA" * (n // 12),
    "hex before -us": lambda n: "0123456789abcdef-us1" * (n // 20),
}


@pytest.mark.parametrize("shape", sorted(WORST_SHAPES))
def test_the_new_formats_scan_in_linear_time(shape):
    """Five times the text takes about five times as long (a ratio in one run, not a time;
    quadratic would be 25 times). Below ~200 KB caches make small texts look cheaper."""
    import time

    from vault_sync.secrets import find_secrets

    def took(n: int) -> float:
        text = WORST_SHAPES[shape](n)
        t0 = time.perf_counter()
        find_secrets(text)
        return time.perf_counter() - t0

    # the fastest of two runs each: a loaded machine slows one run, not both
    small = min(took(200_000) for _ in range(2))
    large = min(took(1_000_000) for _ in range(2))
    assert large < 12 * small, (shape, small, large)
