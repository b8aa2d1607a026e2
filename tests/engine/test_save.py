"""save: the intake gate, file names, tags, duplicates; end to end on the sample vault."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import assert_index_matches_rebuild

from vault_sync.errors import InvalidInput, Refused


def fm(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n", 2)[1])


def test_save_writes_a_full_memory(service, vault):
    out = service.save(
        "The billing API retries webhooks three times with backoff.", tags=["#Billing", "api design", "billing"]
    )
    assert out["saved"] is True and out["reinforced"] is False
    rel = out["note"]["path"]
    assert rel == "STM/The billing API retries webhooks three times with.md"
    meta = fm(vault / rel)
    assert meta["tags"] == ["Billing", "api-design"]
    assert meta["use_count"] == 1 and meta["strength"] == 1.0 and meta["status"] == "active"
    assert meta["created"] == meta["last_used"] and meta["created"].isoformat().startswith("2026-11-20T12:00:00")
    assert meta["decay_score"] == 1.0 and meta["review_priority"] == 0.0 and len(meta["id"]) == 36
    assert (vault / rel).read_text(encoding="utf-8").endswith("three times with backoff.\n")
    row = service.store.note(rel)
    assert row["kind"] == "stm" and row["id"] == meta["id"]
    assert_index_matches_rebuild(service)


def test_title_names_the_file_and_names_are_unique_across_the_vault(service, vault):
    a = service.save("Some text about the espresso machine at home.", title="Espresso recipe")
    assert a["note"]["path"] == "STM/Espresso recipe 2.md"  # LTM/Espresso recipe.md exists
    b = service.save("Another fact entirely about a different espresso.", title="espresso RECIPE")
    assert b["note"]["path"] == "STM/espresso RECIPE 3.md"
    c = service.save("Team channel moved back to atlas-dev after all.", title="Team channel was atlas-dev")
    assert c["note"]["path"] == "STM/Team channel was atlas-dev 2.md"  # Archive/ has it


@pytest.mark.parametrize(
    "title,expected",
    [
        ("What: is <this> a/b\\c |pipe| ?*", "What is this a b c pipe"),
        ("CON", "CON note"),
        ("nul.txt", "nul note.txt"),
        ("  ...trailing dots...  ", "trailing dots"),
        ("[[Link]] #tag ^block", "Link tag block"),
        ("# Heading title", "Heading title"),
    ],
)
def test_windows_safe_names(service, vault, title, expected):
    out = service.save("A perfectly ordinary memory text for the name test.", title=title)
    assert out["note"]["path"] == f"STM/{expected}.md"
    assert (vault / "STM" / f"{expected}.md").exists()


def test_long_and_multibyte_names_fit(service):
    out = service.save("😀" * 300 + " is a lot of emoji in one memory line")
    name = out["note"]["path"].rsplit("/", 1)[1]
    assert len(name.encode("utf-8")) <= 255
    out = service.save("Supercalifragilisticexpialidocious " * 10 + "end of it")
    assert len(out["note"]["path"]) < 100


def test_exact_duplicate_reinforces(service, vault):
    rel = "STM/Staging runs Postgres 16.md"
    body = (vault / rel).read_text(encoding="utf-8").split("---\n", 2)[2]
    before = fm(vault / rel)["use_count"]
    files = sorted(p.name for p in (vault / "STM").iterdir())
    out = service.save("  " + body.upper().replace(" ", "   ") + "\n\n")
    assert out["saved"] is False and out["reinforced"] is True and out["duplicate_of"] == rel
    assert "reinforced" in out["message"] and rel in out["message"]
    assert fm(vault / rel)["use_count"] == before + 1
    assert sorted(p.name for p in (vault / "STM").iterdir()) == files
    assert_index_matches_rebuild(service)


def test_duplicate_of_ltm_note_reinforces_it(service, vault):
    first = service.save("The deploy bot posts to the releases channel.")
    service.promote(first["note"]["path"])
    again = service.save("The deploy bot posts to the releases channel.")
    assert again["reinforced"] and again["duplicate_of"].startswith("LTM/")


@pytest.mark.parametrize("text", ["", "   \n\t ", "ok", "two words", "tiny"])
def test_empty_and_too_short_refused(service, vault, text):
    files = sorted(p.name for p in (vault / "STM").iterdir())
    with pytest.raises(Refused):
        service.save(text)
    assert sorted(p.name for p in (vault / "STM").iterdir()) == files


def test_bad_tags_and_strength(service):
    with pytest.raises(InvalidInput):
        service.save("A valid memory text of some length.", tags=["bad!tag"])
    with pytest.raises(InvalidInput):
        service.save("A valid memory text of some length.", tags=["2024"])
    with pytest.raises(InvalidInput):
        service.save("A valid memory text of some length.", strength=2.5)
    with pytest.raises(InvalidInput):
        service.save("A valid memory text of some length.", title="   ")
    out = service.save("A valid memory text with nested tags.", tags=["Project//Atlas/", "project/atlas"], strength=1.5)
    assert out["note"]["tags"] == ["Project/Atlas"] and out["note"]["strength"] == 1.5


AWS = "AKIA" + "Z3QXMFNW7TDY5HKB"
GH = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
SECRETS = {
    "aws": f"Our deploy key is {AWS} for the prod account.",
    "github": f"Use token {GH} to push to the mirror.",
    "slack": "Webhook bot token xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx here.",
    "openai": "The key sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2W3x4" + " is for staging.",
    "anthropic": "Claude key sk-ant-api03-"
    + "Qm7vR2xK9pL4wN8cT1bZ6hJ3sD5fG0yU2eA7iO4kV9nB3mX8qW1rE6tY5uP0aS2dF7gH4jK9lZ3xC8vB"
    + " for the eval job.",
    "private key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7" + "x" * 60 + "\n-----END RSA PRIVATE KEY-----",
    "password": "The database config says password=Hunter2-Correct-Horse in prod.",
    "connection string": "Connect with postgres://admin:S3cretPassw0rd@db.internal:5432/app daily.",
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_secret_refused_naming_kind_without_echo(service, vault, kind):
    text = SECRETS[kind]
    files = sorted(p.name for p in (vault / "STM").iterdir())
    with pytest.raises(Refused) as err:
        service.save(text, title="Secret note")
    msg = str(err.value)
    assert "secret" in msg
    secretish = [w for w in text.replace("\n", " ").split() if len(w) >= 12 and any(c.isdigit() for c in w)]
    for w in secretish:
        assert w not in msg
        assert w[:12] not in msg or w[:12].lower() in ("postgres://a",)
    assert sorted(p.name for p in (vault / "STM").iterdir()) == files


def test_secret_kinds_are_named(service):
    with pytest.raises(Refused, match="(?i)aws"):
        service.save(SECRETS["aws"])
    with pytest.raises(Refused, match="(?i)private key"):
        service.save(SECRETS["private key"])
    with pytest.raises(Refused, match="(?i)password"):
        service.save(SECRETS["password"])


@pytest.mark.parametrize(
    "text",
    [
        "The request id 7d4f0c2e-4f1b-4a52-9a3e-0c8f5d1e2b11 showed up in the logs twice.",
        "Call get_api_key_from_vault() instead of reading API_KEY_ENV_NAME directly.",
        "Reset your password through the self-service portal, never by email.",
        "The commit 3f9a2b7c4d5e6f708192a3b4c5d6e7f8091a2b3c fixed the race in the scheduler.",
        "Set `password_min_length = 12` in the policy module; tokens expire after one hour.",
        "SHA256 of the release tarball is e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.",
        "Use postgres://localhost:5432/app for local development; it needs no credentials.",
    ],
)
def test_no_false_positives(service, text):
    out = service.save(text)
    assert out["saved"] is True


def test_a_name_that_appears_meanwhile_is_skipped(tmp_path):
    """The one free-name loop of save, save_memories and import: a name taken on disk after the
    index was read (another device, the person) is passed over, never written over."""
    from vault_sync.names import create_under_free_name

    (tmp_path / "STM").mkdir()
    (tmp_path / "STM" / "Deploy notes.md").write_text("theirs")

    def create(rel: str) -> None:
        with open(tmp_path / rel, "x", encoding="utf-8") as fh:  # "x": FileExistsError if it exists
            fh.write("ours")

    taken: set[str] = set()
    rel = create_under_free_name(create, "STM", "Deploy notes", taken)
    assert rel == "STM/Deploy notes 2.md"
    assert (tmp_path / "STM" / "Deploy notes.md").read_text() == "theirs"
    assert taken == {"deploy notes", "deploy notes 2"}
    assert create_under_free_name(create, "STM", "Deploy notes", taken) == "STM/Deploy notes 3.md"
