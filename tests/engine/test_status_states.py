"""status counts memories in its states, and only memories: STM notes that are blocked,
unreadable or not memories at all are listed under problems, never counted as fresh."""

from __future__ import annotations

from conftest import make_service

MEMORY = """---
id: 00000000-0000-4000-8000-00000000000{n}
created: 2026-11-20T10:30:00Z
last_used: 2026-11-20T10:30:00Z
use_count: 1
strength: 1.0
status: active
---
A memory, number {n}.
"""


def test_states_count_only_memories(empty_vault):
    stm = empty_vault / "STM"
    (stm / "one.md").write_text(MEMORY.format(n=1), encoding="utf-8")
    (stm / "two.md").write_text(MEMORY.format(n=2), encoding="utf-8")
    (stm / "unclosed.md").write_text(
        "---\nid: x\nstatus: active\ncreated: 2026-11-20T10:30:00Z\nbody\n", encoding="utf-8"
    )
    (stm / "bad yaml.md").write_text("---\nid: [x\nstatus: active\n---\nbody\n", encoding="utf-8")
    (stm / "binary.md").write_bytes(b"abc\x00def")
    (stm / "empty.md").write_text("", encoding="utf-8")
    (stm / "blocked memory.md").write_text(
        MEMORY.format(n=3).replace("use_count: 1", "use_count: [1"), encoding="utf-8"
    )
    svc = make_service(empty_vault)
    try:
        status = svc.status()
        assert sum(status["stm_states"].values()) == 2, status["stm_states"]
        assert status["by_status"] == {"active": 2}
        assert status["counts"]["stm"] == 7  # every file is still counted as a note of its folder
        blocked = {p["path"] for p in status["problems"] if p.get("blocking")}
        assert {"STM/unclosed.md", "STM/bad yaml.md", "STM/binary.md", "STM/empty.md"} <= blocked
    finally:
        svc.close()
