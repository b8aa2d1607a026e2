"""GET /api/related (vault_sync/ops/related.py): memories related to a note, with embeddings off."""

from __future__ import annotations

import pytest

from tests.conftest import make_service
from vault_sync.errors import InvalidInput, NotFound


def _write(vault, rel, tags, body):
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    tag_line = f"tags: [{', '.join(tags)}]\n" if tags else ""
    path.write_text(f"---\n{tag_line}---\n{body}\n", encoding="utf-8")


@pytest.fixture
def svc(empty_vault):
    _write(empty_vault, "Projects/Kafka plan.md", ["kafka", "ops"], "Plan for the Kafka cluster.")
    _write(empty_vault, "STM/Kafka lag alert at 5000.md", ["kafka", "ops"], "Alert fires at 5000.")
    _write(empty_vault, "STM/Kafka retention is 7 days.md", ["kafka"], "Retention seven days.")
    _write(empty_vault, "STM/Coffee grinder 18.md", ["coffee"], "Pour-over setting.")
    _write(empty_vault, "Projects/Untagged kafka notes.md", [], "Nothing tagged.")
    s = make_service(empty_vault)
    yield s
    s.close()


def test_shared_tags_rank_memories_by_overlap_and_say_so(svc):
    out = svc.related("Projects/Kafka plan.md", 10)
    assert out["method"] == "tags"
    assert "Embeddings are off" in out["notice"]
    assert [(i["path"], i["similarity"]) for i in out["items"]] == [
        ("STM/Kafka lag alert at 5000.md", 1.0),
        ("STM/Kafka retention is 7 days.md", 0.5),
    ]
    first = out["items"][0]
    assert first["title"] == "Kafka lag alert at 5000" and first["state"] == "fresh" and first["score"] is not None
    assert "id" in first


def test_limit_and_the_note_itself_is_never_listed(svc):
    out = svc.related("STM/Kafka lag alert at 5000.md", 1)
    assert [i["path"] for i in out["items"]] == ["STM/Kafka retention is 7 days.md"]


def test_the_ltm_index_note_is_never_related(svc, empty_vault):
    index = "LTM/LTM Index.md"
    _write(empty_vault, index, ["kafka", "ops"], "[[Kafka lag alert at 5000]] [[Kafka retention is 7 days]]")
    svc.sync()
    assert svc.store.note(index)["kind"] == "ltm"  # a memory's kind by its folder, yet no memory
    for ref in ("Projects/Kafka plan.md", "Projects/Untagged kafka notes.md"):
        assert index not in [i["path"] for i in svc.related(ref, 10)["items"]]


def test_without_tags_falls_back_to_text_on_the_title(svc):
    out = svc.related("Projects/Untagged kafka notes.md", 5)
    assert out["method"] == "text"
    paths = [i["path"] for i in out["items"]]
    assert paths and all(p.startswith("STM/Kafka") for p in paths)


def test_bad_input_is_a_clear_error(svc):
    with pytest.raises(InvalidInput):
        svc.related("Projects/Kafka plan.md", 0)
    with pytest.raises(NotFound):
        svc.related("Projects/none.md", 5)
