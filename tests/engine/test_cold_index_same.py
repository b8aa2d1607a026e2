"""A cold index holds what the vault says, by every route: the bulk build equals the index
grown note by note, and each stored value equals its definition computed the plain way
(links and tags against markdown-it's full parse, the body hash, the trigram rows)."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timezone

import pytest

from bridge.bench.generate import generate
from vault_sync.codeblocks import parsed_code_lines
from vault_sync.index import trigram
from vault_sync.index.store import IndexStore
from vault_sync.index.sync import Indexer
from vault_sync.links import _strip_inline_code, extract_outside_code
from vault_sync.note import parse_note, related_links
from vault_sync.vault import Layout

NOW = datetime(2026, 11, 26, tzinfo=timezone.utc)

# what generated notes do not hold: line ends, tab-indented lists, scripts the word index
# cannot cut, Unicode case and spaces, owned keys spelled oddly, links in properties
ODD_NOTES = {
    "Odd/crlf.md": "---\r\ntags: [a, b]\r\n---\r\n# CRLF [[x]]\r\n\r\n    code [[no]]\r\n\r\ntext #t1 [[y|Y]]\r\n",
    "Odd/lone cr.md": "line one\rline two [[z]]\r\n```\r[[no]]\r```\n#t2\n",
    "Odd/tabs.md": "- item [[a1]]\n\t- sub [[a2]]\n\t\t```\n\t\t[[no]]\n\t\t```\n\n\tindented after list [[a3]]\n",
    "Odd/quote.md": "> quoted [[q1]]\n> ```\n> [[no]]\n> ```\nlazy [[q2]]\n\n>     code [[no]]\n",
    "Odd/中文.md": "---\naliases: [設定]\n---\n# 设置 [[其他]]\n\n"
    "这是一个中文句子，测试三元组索引。\n\nキーボード ショートカット "
    "#日本\n",
    "Odd/korean thai.md": "학교에서 공부합니다 [[한국]]\n\nภาษาไทย ทดสอบ #ไทย\n",
    "Odd/unicode case.md": "STRASSE Straße ΣΊΣΥΦΟΣ\u00a0nbsp\u3000ideographic\u2003em\n\nİstanbul #Ünïcode\n",
    "Odd/owned.md": "---\nTags: [x]\nUse_Count: 3\nrelated: ['[[A note]]', '[[B#h|b]]']\nsee_also: '[[C]]'\n---\nbody "
    "``a `[[no]]` b`` [[d]]\n",
    "Odd/html.md": "<div>\n[[h1]]\n\n    not code [[h2]]\n</div>\n\n[ref]: /url\n    [[h3]]\n",
    "Odd/no frontmatter end.md": "---\ntags: [x]\nno close [[n1]]\n",
    "Odd/indented first.md": "    code first [[no]] #no\n\ntext [[i1]]\n",
    "Odd/wide item.md": "-    wide item [[w1]]\n\n      code? [[w2]]\n",
    "Odd/control.md": "a\x1cb\x1fc words [[ctl]] #ctl\n",
    "STM/turn.md": "---\nid: t1\nconversation: c1\nsaid_at: 2026-11-01T10:00:00Z\n---\nfirst turn [[x]]\n",
    "STM/turn2.md": "---\nid: t2\nconversation: c1\nsaid_at: 2026-11-01T10:01:00Z\n---\nsecond turn\n",
}


@pytest.fixture(scope="module")
def varied_vault(tmp_path_factory):
    root = tmp_path_factory.mktemp("cold") / "vault"
    generate(root, 160, NOW, code_share=0.6)
    for rel, text in ODD_NOTES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return root


def _built(vault, index, cold: bool) -> IndexStore:
    """A cold reconcile (every note inserted in bulk), or one sync per note, in path order."""
    store = IndexStore(index)
    indexer = Indexer(store, Layout(vault))
    if cold:
        indexer.reconcile(rebuild=True)
    else:
        for path in sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*")):
            indexer.sync_paths([path])
    return store


def test_the_bulk_build_equals_the_index_grown_note_by_note(varied_vault, tmp_path):
    cold = _built(varied_vault, tmp_path / "cold.sqlite3", cold=True)
    grown = _built(varied_vault, tmp_path / "grown.sqlite3", cold=False)
    try:
        dump = cold.canonical_dump()
        assert len(dump["notes"]) == 160 + len(ODD_NOTES)
        assert dump["orphans"] == 0
        assert dump == grown.canonical_dump()
        # the bulk build drops the tables' indexes while it fills them: all are back, the same
        definitions = "SELECT name, tbl_name, sql FROM sqlite_master WHERE type='index' ORDER BY name"
        indexes = [tuple(r) for r in cold.db.execute(definitions)]
        assert indexes == [tuple(r) for r in grown.db.execute(definitions)]
        assert {"notes_name", "links_target", "tags_tag_note", "aliases_alias"} <= {name for name, _, _ in indexes}
        assert cold.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        cold.close()
        grown.close()


def _full_parse_strip(text: str) -> str:
    lines = text.split("\n")
    for start, end in parsed_code_lines(text):
        for i in range(start, min(end, len(lines))):
            lines[i] = ""
    out = "\n".join(lines)
    return _strip_inline_code(out) if "`" in out else out


def test_every_stored_value_equals_its_plain_definition(varied_vault, tmp_path):
    store = _built(varied_vault, tmp_path / "cold.sqlite3", cold=True)
    try:
        dump = store.canonical_dump()
        with_trigram = 0
        for rel, row in dump["notes"].items():
            note = parse_note(rel, (varied_vault / rel).read_bytes())
            links, tags, h1 = extract_outside_code(_full_parse_strip(note.body)) if note.text else ([], [], None)
            expected_links = sorted(
                (l.target, l.subpath, l.alias, l.kind, int(l.markdown)) for l in links + related_links(note)
            )
            assert row["links"] == expected_links, rel
            assert row["title"] == (h1 or note.title), rel
            all_tags = list(dict.fromkeys([*note.fields.tags, *tags]))
            assert row["tags"] == sorted(all_tags), rel
            assert row["fts"] == (row["title"], note.body, " ".join(all_tags)), rel
            norm = " ".join(note.body.split()).casefold()
            assert (
                row["body_hash"] == hashlib.blake2b(norm.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
            ), rel
            script = re.compile(trigram._CHAR.pattern)  # the plain search, without a shortcut
            if script.search(row["title"]) or script.search(note.body):
                with_trigram += 1
                assert row["trigram"] == (trigram.extract(row["title"]), trigram.extract(note.body)), rel
            else:
                assert row["trigram"] is None, rel
        assert with_trigram == 2
        # the odd notes did hold what they are here for
        assert ("a3", "", "", "link", 0) in dump["notes"]["Odd/tabs.md"]["links"]
        assert not any(l[0] == "no" for row in dump["notes"].values() for l in row["links"])
        assert dump["notes"]["STM/turn.md"]["window"] is not None
    finally:
        store.close()


def test_the_cycle_collector_is_paused_only_while_a_reconcile_runs(varied_vault, tmp_path, monkeypatch):
    import gc

    seen: list[bool] = []
    apply = Indexer._apply

    def recording(self, *args, **kwargs):
        seen.append(gc.isenabled())
        return apply(self, *args, **kwargs)

    monkeypatch.setattr(Indexer, "_apply", recording)
    store = _built(varied_vault, tmp_path / "cold.sqlite3", cold=True)
    try:
        assert seen == [False] and gc.isenabled()

        def failing(self, *args, **kwargs):
            raise OSError("disk gone")

        monkeypatch.setattr(Indexer, "_apply", failing)
        with pytest.raises(OSError):
            Indexer(store, Layout(varied_vault)).reconcile()
        assert gc.isenabled()
    finally:
        store.close()
