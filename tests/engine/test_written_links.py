"""Every link the engine writes (the LTM Index, a promoted note's Related section, rewrites on
a move) resolves to its note under Obsidian's rules, read by an independent resolver
(tests/obsidian_resolver.py), in the shortest form no note can read as another."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import make_service
from obsidian_resolver import dangling, resolve

from vault_sync.index.resolver import Resolver

MARTA = "STM/Marta owns billing on-call.md"
SAM = "STM/Sam wants weekly status in Slack.md"
HANDBOOK = "LTM/On-call handbook.md"
UV = "STM/Use uv for Python environments.md"
WIKI = re.compile(r"\[\[([^\]|#]+)")


def _write(vault: Path, rel: str, text: str) -> None:
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_text(text, encoding="utf-8")


def _files(vault: Path) -> tuple[list[str], list[str]]:
    files = [
        p.relative_to(vault).as_posix()
        for p in vault.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(vault).parts)
    ]
    return [f for f in files if f.endswith(".md")], [f for f in files if not f.endswith(".md")]


def _targets(text: str) -> list[str]:
    return [m.strip() for m in WIKI.findall(text)]


def test_shortest_target_is_the_name_then_the_shortest_unique_end_then_the_path():
    r = Resolver(["a/Note.md", "x/b/Dup.md", "y/b/Dup.md", "c/Dup.md", "p/q/Twin.md", "r/q/Twin.md", "Twin.md"])
    assert r.shortest_target("a/Note.md") == "Note"
    assert r.shortest_target("c/Dup.md") == "c/Dup"
    assert r.shortest_target("x/b/Dup.md") == "x/b/Dup"  # b/Dup is also y/b/Dup's end
    assert r.shortest_target("Twin.md") == "Twin"  # nothing shorter than the whole path
    assert r.shortest_target("p/q/Twin.md") == "p/q/Twin"
    assert r.shortest_target("a/Note.md", min_parts=2) == "a/Note"
    notes = ["a/Note.md", "x/b/Dup.md", "y/b/Dup.md", "c/Dup.md", "p/q/Twin.md", "r/q/Twin.md", "Twin.md"]
    for path in notes:  # from any note, the form means its note, whatever the tie-break
        for source in notes:
            assert resolve(r.shortest_target(path), source, False, notes, []) == path, (path, source)


def test_links_written_on_promotion_stay_on_target_with_duplicate_names(vault):
    # other notes share the names of the promoted note and of the notes it relates to
    _write(vault, "no/Importer notater/Marta owns billing on-call.md", "# A Norwegian note\n")
    _write(vault, "Marta owns billing on-call.md", "# At the root: the shortest path of all\n")
    _write(vault, "Archive/old/Sam wants weekly status in Slack.md", "# an old copy\n")
    _write(vault, "On-call handbook.md", "# a draft handbook at the root\n")
    _write(vault, "Projects/Use uv for Python environments.md", "# another uv note\n")
    _write(
        vault, "Daily/log.md", "Billing: [[STM/Marta owns billing on-call]] and [[Use uv for Python environments]]\n"
    )
    svc = make_service(vault)
    try:
        svc.promote(MARTA)
        svc.promote(UV)
    finally:
        svc.close()
    notes, files = _files(vault)
    index = (vault / "LTM" / "LTM Index.md").read_text(encoding="utf-8")
    entries = _targets(index)[-2:]  # the sample vault's index lists earlier promotions first
    assert entries == ["LTM/Marta owns billing on-call", "LTM/Use uv for Python environments"]
    for target, want in zip(entries, ["LTM/Marta owns billing on-call.md", "LTM/Use uv for Python environments.md"]):
        assert resolve(target, "LTM/LTM Index.md", False, notes, files) == want

    promoted = "LTM/Marta owns billing on-call.md"
    related = (vault / promoted).read_text(encoding="utf-8").split("## Related", 1)[1]
    targets = _targets(related)
    assert [resolve(t, promoted, False, notes, files) for t in targets] == [SAM, HANDBOOK]
    assert targets == ["STM/Sam wants weekly status in Slack", "LTM/On-call handbook"]  # shortest unique

    log = (vault / "Daily" / "log.md").read_text(encoding="utf-8")
    assert [resolve(t, "Daily/log.md", False, notes, files) for t in _targets(log)] == [
        "LTM/Marta owns billing on-call.md",
        "LTM/Use uv for Python environments.md",
    ]
    assert not [d for d in dangling(vault) if d[0] in ("Daily/log.md", promoted, "LTM/LTM Index.md")]


def test_a_unique_name_is_written_bare(vault):
    svc = make_service(vault)
    try:
        svc.promote(UV)
    finally:
        svc.close()
    index = (vault / "LTM" / "LTM Index.md").read_text(encoding="utf-8")
    assert _targets(index)[-1] == "Use uv for Python environments"
