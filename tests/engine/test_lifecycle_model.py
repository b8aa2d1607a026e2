"""One model test of the whole lifecycle: random sequences of every operation, through the
service (in-process, real files, real SQLite, embeddings off, a clock the machine advances),
with the guarantees checked after every step:

- no superseded memory is a current answer (search, brief, review), nor is its text
  brought back by another note (a merge);
- each memory id lives on exactly one path, and no memory is lost;
- every archived memory is found by an archive search;
- the index equals a rebuild;
- no link changes its target across an engine operation (a person's rename may break
  links: that is the person's doing, not the engine's);
- no byte outside owned keys changes in a note a person wrote or edited (links may be
  re-pointed by a move, a promotion may add its "## Related" section).

Default run: EXAMPLES sequences of up to STEPS steps. Slow mode, by hand (not MNEMOVAULT_*:
tests/conftest.py clears those):
    LIFECYCLE_MODEL_EXAMPLES=5000 .venv/bin/python -m pytest tests/engine/test_lifecycle_model.py -q
(LIFECYCLE_MODEL_STEPS sets the longest sequence).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import obsidian_resolver
import pytest
from conftest import FIXED_NOW
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from vault_sync.dates import format_datetime
from vault_sync.fmblock import find_block
from vault_sync.note import OWNED_KEYS, parse_note

# Guarantees that were being built beside this test: each switch turns off the rule or check
# that depends on one (both are on main now; kept so that a regression can be bisected).
SUPERSESSION_FIXED = True  # consolidate never merges a superseded memory; a restored one stays out of gc
ARCHIVE_SEARCH_FIXED = True  # an archive search finds every archived memory, superseded ones included

EXAMPLES = int(os.environ.get("LIFECYCLE_MODEL_EXAMPLES", "") or 200)
# one test of many sequences: on a loaded machine it needs more than the suite's 300 s
pytestmark = pytest.mark.timeout(900)
STEPS = int(os.environ.get("LIFECYCLE_MODEL_STEPS", "") or 12)

ENGINE_KEYS = set(OWNED_KEYS) | {"archive_reason", "merged_into", "merged_from", "superseded_by", "supersedes"}
MEMORY_FOLDERS = ("STM", "LTM", "Archive")
TOPICS = ("Train", "Dentist", "Budget", "Garden")  # shared titles: names collide on purpose
PERSON_FOLDERS = ("Projects", "Areas")
PROJECTS = (None, "atlas", "borealis")  # None: shared (docs/projects.md)
_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*:")
_WIKI = re.compile(r"\[\[[^\[\]\n]*\]\]")
_MDLINK = re.compile(r"\]\((<[^<>\n]*>|[^()\s]*)\)")
_RELATED = re.compile(r"\n*## Related\n\n(?:- [^\n]*\n)*\Z")


def masked(data: bytes) -> str:
    """A note as the person owns it: owned-key lines (and their list items) out of the
    frontmatter, link targets blanked (moves re-point them), a trailing Related section out."""
    text = data.decode("utf-8")
    block = find_block(text)
    head, body = (text[: block.body_start], text[block.body_start :]) if block else ("", text)
    kept, owned = [], False
    for line in head.split("\n"):
        m = _KEY_LINE.match(line)
        if m:
            owned = m.group(1).lower() in ENGINE_KEYS
        elif line.strip() in ("---", "") or line.lstrip().startswith("#"):
            owned = False
        if not owned:
            kept.append(line)
    body = _RELATED.sub("\n", body)
    out = "\n".join(kept) + body
    return _MDLINK.sub("]()", _WIKI.sub("[[]]", out))


def without_key(lines: list[str], key: str) -> list[str]:
    """Frontmatter lines without `key` and its list items."""
    out, inside = [], False
    for line in lines:
        if _KEY_LINE.match(line):
            inside = line.startswith(f"{key}:")
        elif not line.startswith((" ", "\t", "-")) or line == "---":
            inside = False
        if not inside:
            out.append(line)
    return out


class LifecycleMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        from vault_sync.service import MemoryService
        from vault_sync.settings import load_settings

        # a memory file system where there is one: thousands of vaults, each write synced
        shm = Path("/dev/shm")
        self.tmp = Path(tempfile.mkdtemp(prefix="mnemovault-model-", dir=shm if shm.is_dir() else None))
        self.vault = self.tmp / "vault"
        for folder in ("STM", *PERSON_FOLDERS):
            (self.vault / folder).mkdir(parents=True)
        self.now = FIXED_NOW
        self.svc = MemoryService(
            load_settings(
                vault=self.vault,
                quiet_seconds=0,
                embeddings=False,
                auto_promote=True,
                auto_gc=True,
                index_path=self.tmp / "index.sqlite3",
            ),
            clock=lambda: self.now,
        )
        self.svc.sync()
        self.n = 0
        self.token: dict[str, str | None] = {}  # memory id -> its fact's word (None: a merge of several)
        # word of a superseded fact -> the other notes that already said it then (only a note
        # written later, a merge, must not bring it back)
        self.stale: dict[str, set[str]] = {}
        self.person: dict[str, str] = {}  # note key (memory id or path) -> masked bytes the person owns
        self.restored: set[str] = set()
        self.imports: list[Path] = []
        # memory id -> the project it must still have: only a save, a merge of one project's
        # memories or the person's own edit of the key decides it (no operation moves it)
        self.project: dict[str, str | None] = {}
        self._disk: dict[str, tuple[bytes, Any]] | None = None

    def teardown(self):
        self.svc.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- what is on disk (read once per state: every change goes through changed()) --
    def changed(self) -> None:
        self._disk = None

    def disk(self) -> dict[str, tuple[bytes, Any]]:
        """rel -> (bytes, parsed note) of every note of the vault."""
        if self._disk is None:
            out = {}
            for p in sorted(self.vault.rglob("*.md")):
                rel = p.relative_to(self.vault).as_posix()
                if not any(part.startswith(".") for part in rel.split("/")):
                    data = p.read_bytes()
                    out[rel] = (data, parse_note(rel, data))
            self._disk = out
        return self._disk

    def files(self) -> list[str]:
        return list(self.disk())

    def ids_on_disk(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for rel, (_, note) in self.disk().items():
            if note.fields.id:
                out.setdefault(note.fields.id, []).append(rel)
        return out

    def path_of(self, key: str) -> str | None:
        if "/" in key:
            return key if (self.vault / key).exists() else None
        paths = self.ids_on_disk().get(key)
        return paths[0] if paths else None

    def key_of(self, rel: str) -> str:
        return self.disk()[rel][1].fields.id or rel

    def link_map(self) -> dict[str, dict[bool, list[str | None]]]:
        """note key -> {markdown?: [target note key or None, in order]}, read from disk by
        the tests' own reading of Obsidian's rules; body links only (the engine re-points
        its own frontmatter links, e.g. superseded_by, on purpose)."""
        files = self.files()
        keys = {rel: self.key_of(rel) for rel in files}
        out: dict[str, dict[bool, list[str | None]]] = {}
        for rel in files:
            seen: dict[bool, list[str | None]] = {False: [], True: []}
            for target, markdown in obsidian_resolver.links_in(self.disk()[rel][0].decode("utf-8"), frontmatter=False):
                hit = obsidian_resolver.resolve(target, rel, markdown, files, [])
                seen[markdown].append(keys.get(hit) if hit else None)
            out[keys[rel]] = seen
        return out

    def own_text(self, rel: str) -> str:
        """A note's text without its links (a link names another note, it does not say its fact)."""
        return _MDLINK.sub("]()", _WIKI.sub("[[]]", self.disk()[rel][0].decode("utf-8")))

    def rows(self, kinds: tuple[str, ...]) -> list[str]:
        marks = ",".join("?" * len(kinds))
        return [
            r["id"]
            for r in self.svc.store.query(
                f"SELECT id FROM notes WHERE kind IN ({marks}) AND id IS NOT NULL ORDER BY path", kinds
            )
        ]

    def superseded_ids(self) -> set[str]:
        out = set()
        for _, note in self.disk().values():
            if note.fields.id and (
                note.frontmatter.get("superseded_by") or note.frontmatter.get("status") == "superseded"
            ):
                out.add(note.fields.id)
        return out

    # -- engine operations --
    def engine(self, op, *args, **kw):
        """Run one engine operation; a refusal (the engine's own error) changes nothing."""
        from vault_sync.errors import MnemovaultError

        before = self.link_map()
        try:
            result = op(*args, **kw)
        except MnemovaultError:
            result = None
        self.changed()
        self.check_links(before, self.link_map())
        return result

    def new_word(self) -> str:
        self.n += 1
        return f"mvq{self.n}z"

    def remember_new(self, word: str, project: str | None = None) -> None:
        """Record the id of the memory that carries `word` (a save or an import made it), filed under `project`."""
        for rel, (data, note) in self.disk().items():
            if word.encode() in data:
                mid = note.fields.id
                if mid and mid not in self.token:
                    self.token[mid] = word
                    self.project[mid] = project

    def text(self, word: str, data) -> str:
        text = f"{data.draw(st.sampled_from(TOPICS))} detail {word}."
        known = self.rows(("stm", "ltm", "note"))
        if known and data.draw(st.booleans()):
            row = self.svc.store.note(self.path_of(data.draw(st.sampled_from(known))) or "")
            if row is not None:
                text += f" See [[{row['path'].rsplit('/', 1)[-1][:-3]}]]."
        return text

    def current_project(self, mid: str) -> str | None:
        rel = self.path_of(mid)
        return self.disk()[rel][1].fields.project if rel else None

    @rule(data=st.data(), titled=st.booleans(), project=st.sampled_from(PROJECTS))
    def save(self, data, titled, project):
        word = self.new_word()
        title = data.draw(st.sampled_from(TOPICS)) if titled else None
        self.engine(
            self.svc.save,
            self.text(word, data),
            tags=[data.draw(st.sampled_from(["home", "work"]))],
            title=title,
            project=project,
        )
        self.remember_new(word, project)

    @precondition(lambda self: self.token)
    @rule(data=st.data(), project=st.sampled_from(PROJECTS), across=st.booleans())
    def save_superseding(self, data, project, across):
        old = data.draw(st.sampled_from(list(self.token)))
        word = self.new_word()
        theirs = self.current_project(old)
        result = self.engine(
            self.svc.save, self.text(word, data), supersedes=[old], project=project, across_projects=across
        )
        self.remember_new(word, project)
        if result and result.get("superseded"):
            assert across or (theirs or "") == (project or ""), "superseded across projects without being asked"
            self.mark_stale(old)

    @precondition(lambda self: len(self.token) >= 2)
    @rule(data=st.data(), across=st.booleans())
    def supersede(self, data, across):
        old, by = data.draw(st.lists(st.sampled_from(list(self.token)), min_size=2, max_size=2, unique=True))
        mixed = (self.current_project(old) or "") != (self.current_project(by) or "")
        if self.engine(self.svc.supersede, old, by, across_projects=across) is not None:
            assert across or not mixed, "superseded across projects without being asked"
            self.mark_stale(old)

    def mark_stale(self, mid: str) -> None:
        self.restored.discard(mid)  # superseded again after its restore: gc may archive it again
        word = self.token.get(mid)
        if word and word not in self.stale:
            self.stale[word] = {
                n.fields.id or rel
                for rel, (_, n) in self.disk().items()
                if re.search(rf"\b{word}\b", self.own_text(rel))
            } - {mid}

    @precondition(lambda self: self.token)
    @rule(data=st.data(), boost=st.booleans())
    def touch(self, data, boost):
        self.engine(self.svc.touch, data.draw(st.sampled_from(list(self.token))), boost=boost)

    @precondition(lambda self: self.token)
    @rule(data=st.data(), pin=st.booleans(), undo=st.booleans())
    def pin(self, data, pin, undo):
        """Pin or unpin a memory; an unpin with pin's prior is its undo: the note's bytes come back."""
        mid = data.draw(st.sampled_from(list(self.token)))
        rel = self.path_of(mid)
        before = (self.vault / rel).read_bytes() if rel else None
        out = self.engine(self.svc.pin if pin else self.svc.unpin, mid)
        if undo and pin and out and out["changed"] and rel == out["note"]["path"]:
            self.engine(self.svc.unpin, mid, prior=out["prior"])
            assert (self.vault / rel).read_bytes() == before, f"unpin with pin's prior did not give back {rel}"
        elif out and out["changed"] and rel == out["note"]["path"]:
            key = mid if "/" not in mid else rel
            if key in self.person:  # `pinned` is the person's key, written at their request: theirs now
                self.person[key] = masked((self.vault / rel).read_bytes())

    @precondition(lambda self: self.token)
    @rule(data=st.data())
    def observe(self, data):
        refs = data.draw(st.lists(st.sampled_from(list(self.token)), min_size=1, max_size=3, unique=True))
        self.engine(self.svc.observe, refs, context_tags=["home"])

    @rule(data=st.data(), replaced=st.booleans())
    def consolidate(self, data, replaced):
        """Two or three STM memories; with `replaced`, one of them a superseded one."""
        stm = self.rows(("stm",))
        gone = self.superseded_ids()
        if not SUPERSESSION_FIXED:
            stm, replaced = [m for m in stm if m not in gone], False
        old = [m for m in stm if m in gone] if replaced else []
        if len(stm) < 2:
            return
        members = data.draw(st.lists(st.sampled_from(stm), min_size=2, max_size=3, unique=True))
        if old and not set(members) & set(old):
            members[0] = data.draw(st.sampled_from(old))
            members = list(dict.fromkeys(members))
        projects = {self.current_project(m) or "" for m in members}
        result = self.engine(self.svc.consolidate, members, apply=True)
        if result and result.get("note"):
            assert len(projects) == 1, f"consolidation merged memories of projects {projects}"
            new = result["note"]["id"]
            self.token[new] = None
            self.project[new] = projects.pop() or None
            for said in self.stale.values():  # merging a note that already said it says it again
                if said & set(members):
                    said.add(new)

    @rule()
    def gc(self):
        self.check_gc(self.engine(self.svc.gc, dry_run=False))

    def check_gc(self, report) -> None:
        if not SUPERSESSION_FIXED or not report:
            return
        for move in report.get("archived", []):
            assert not (move["id"] in self.restored and "superseded" in move["reason"]), (
                f"a memory restored by request was archived again for its supersession: {move}"
            )

    @precondition(lambda self: self.token)
    @rule(data=st.data())
    def archive(self, data):
        self.engine(self.svc.archive, data.draw(st.sampled_from(list(self.token))))

    @rule(data=st.data())
    def restore(self, data):
        archived = self.rows(("archive",))
        if not archived:
            return
        mid = data.draw(st.sampled_from(archived))
        if self.engine(self.svc.restore, mid) is not None:
            self.restored.add(mid)
            if self.token.get(mid) and mid not in self.superseded_ids():
                self.stale.pop(self.token[mid], None)  # type: ignore[arg-type]

    def respell(self, rel: str) -> None:
        """Owned values as another tool spells them (an offset for Z, 0.250): an undo must keep it."""
        data = (self.vault / rel).read_bytes().decode("utf-8")
        note = parse_note(rel, data.encode("utf-8"))
        when = note.fields.last_used
        if when is None or not note.writable:
            return
        offset = when.astimezone(timezone(timedelta(hours=-3))).isoformat()
        text = re.sub(r"(?m)^last_used: [^\r\n]*", f"last_used: {offset}", data, count=1)
        text = re.sub(r"(?m)^(decay_score: \d\.\d+)(?=\r?$)", r"\g<1>00", text, count=1)
        if text != data:
            (self.vault / rel).write_bytes(text.encode("utf-8"))
            self.svc.sync()
            self.changed()

    @precondition(lambda self: self.token)
    # both undos checked: what the model found is in tests/engine/test_archive_undo.py
    @rule(
        data=st.data(),
        grade=st.sampled_from(["remember", "fade"]),
        respell=st.booleans(),
        action=st.sampled_from(["review", "archive", "pin"]),
    )
    def undo_is_exact(self, data, grade, respell, action):
        """A review, an archive or a pin, then its undo: the note's bytes as they were, to the byte."""
        rel = self.path_of(data.draw(st.sampled_from(list(self.token))))
        if rel is None or not rel.startswith(("STM/", "LTM/")):
            return
        if respell:
            self.respell(rel)
        before = (self.vault / rel).read_bytes()
        if action == "pin":
            pinned = self.engine(self.svc.pin, rel)
            if pinned is None or pinned.get("prior") is None:
                return  # already pinned (no prior to undo to) or refused
            assert self.engine(self.svc.unpin, rel, prior=pinned["prior"]) is not None
        elif action == "archive":
            moved = self.engine(self.svc.archive, rel)
            if moved is None or moved.get("prior") is None:
                return
            back = self.engine(self.svc.restore, moved["to"], prior=moved["prior"])
            assert back is not None and back["to"] == rel, f"archive undo did not come back to {rel}: {back}"
        else:
            out = self.engine(self.svc.review_memory, rel, grade)
            if out is None:
                return
            assert self.engine(self.svc.undo_review, rel, out["prior"], out["after"]) is not None
        assert (self.vault / rel).read_bytes() == before, f"undo changed bytes of {rel}"

    @rule(data=st.data())
    def promote(self, data):
        stm = self.rows(("stm",))
        if stm:
            self.engine(self.svc.promote, data.draw(st.sampled_from(stm)))

    @rule(count=st.integers(1, 3), again=st.booleans(), age=st.integers(0, 400))
    def import_file(self, count, again, age):
        again = again and bool(self.imports)
        if again:  # the same file twice: nothing new
            path = self.imports[-1]
        else:
            path = self.tmp / f"mem0-{len(self.imports)}.json"
            when = format_datetime(self.now - timedelta(days=age))
            items = [
                {
                    "id": f"m0-{len(self.imports)}-{i}",
                    "memory": f"Imported detail {self.new_word()}.",
                    "created_at": when,
                    "updated_at": when,
                    "categories": ["imported"],
                }
                for i in range(count)
            ]
            path.write_text(json.dumps(items), encoding="utf-8")
            self.imports.append(path)
        before = set(self.token)
        self.engine(self.svc.import_memories, "mem0", path)
        for item in json.loads(path.read_text(encoding="utf-8")):
            self.remember_new(item["memory"].split()[-1].rstrip("."))
        if again:
            assert set(self.token) == before, "importing the same file again made new memories"

    @rule(days=st.sampled_from([0.5, 3, 20, 90, 400]), whole=st.booleans())
    def later(self, days, whole):
        """The clock moves on and the daemon's lifecycle (or a bare sweep) runs."""
        self.now += timedelta(days=days)
        if whole:
            self.check_gc(self.engine(self.svc.run_lifecycle).get("gc"))
        else:
            self.engine(self.svc.sweep)

    # -- a person, writing files as an editor would --
    def person_wrote(self, rels: list[str]) -> None:
        self.svc.writes.synced(rels)  # what the watcher does on their events
        self.changed()

    @rule(data=st.data(), folder=st.sampled_from(PERSON_FOLDERS), newline=st.sampled_from(["\n", "\r\n"]))
    def person_note(self, data, folder, newline):
        name = data.draw(st.sampled_from([*TOPICS, "Hub", "Plan"]))
        rel = f"{folder}/{name}.md"
        if (self.vault / rel).exists():
            return
        lines = ["---", "mine: a note of my own", "# my comment", "---", f"My {name} note."]
        for mid in data.draw(st.lists(st.sampled_from(list(self.token)), max_size=3)) if self.token else []:
            target = self.path_of(mid)
            if target:
                stem = target[:-3]
                name = stem.rsplit("/", 1)[-1]
                lines.append(
                    data.draw(
                        st.sampled_from(
                            [
                                f"- [[{name}]]",
                                f"- [[{stem}]]",
                                f"- [[{name}|shown]]",
                                f"- ![[{stem}#Part]]",
                                f"- [it](../{stem.replace(' ', '%20')}.md)",
                                f"- [it](<../{stem}>)",
                            ]
                        )
                    )
                )
        data_bytes = (newline.join(lines) + newline).encode("utf-8")
        (self.vault / rel).write_bytes(data_bytes)
        self.person[rel] = masked(data_bytes)
        self.person_wrote([rel])

    @precondition(lambda self: self.token or self.person)
    @rule(data=st.data(), how=st.sampled_from(["body", "key", "comment", "tags", "pinned", "project"]))
    def person_edit(self, data, how):
        key = data.draw(st.sampled_from(list(dict.fromkeys([*self.token, *self.person]))))
        rel = self.path_of(key)
        if rel is None:
            return
        text = (self.vault / rel).read_bytes().decode("utf-8")
        block = find_block(text)
        head, body = (text[: block.body_start], text[block.body_start :]) if block else ("", text)
        nl = "\r\n" if "\r\n" in text else "\n"  # as an editor does: the note's own line ends
        if how == "body" or not head:
            body = body.rstrip("\r\n") + f"{nl}Edited by the person {self.new_word()}.{nl}"
        else:
            lines = head.rstrip("\r\n").split(nl)
            self.n += 1
            extra = {
                "key": f"mine_{self.n}: value {self.n}",
                "comment": f"# the person's comment {self.n}",
                "tags": "tags: [home, mine]",
                "pinned": "pinned: true",
                "project": f"project: {data.draw(st.sampled_from(PROJECTS[1:]))}",
            }[how]
            if how in ("tags", "pinned", "project"):  # an input key: the person sets it anew
                lines = without_key(lines, how)
            if how == "project" and key in self.project:  # the person moves the memory: the one way it moves
                self.project[key] = extra.split(": ", 1)[1]
            lines.insert(len(lines) - 1, extra)  # before the closing ---
            head = nl.join(lines) + nl
        new = (head + body).encode("utf-8")
        (self.vault / rel).write_bytes(new)
        self.person[key if "/" not in key else rel] = masked(new)
        self.person_wrote([rel])

    @precondition(lambda self: self.token or self.person)
    @rule(data=st.data(), name=st.sampled_from([*TOPICS, "Renamed", "Moved on"]), across=st.booleans())
    def person_moves(self, data, name, across):
        key = data.draw(st.sampled_from(list(dict.fromkeys([*self.token, *self.person]))))
        src = self.path_of(key)
        if src is None:
            return
        folder = src.rsplit("/", 1)[0]
        if across:  # to the other folder of the person's, or a memory by hand to LTM/ or STM/
            folder = {"Projects": "Areas", "Areas": "Projects", "STM": "LTM", "LTM": "STM", "Archive": "STM"}[folder]
        dst = f"{folder}/{name}.md"
        if (self.vault / dst).exists():
            return
        (self.vault / folder).mkdir(exist_ok=True)
        os.rename(self.vault / src, self.vault / dst)
        if key in self.person and "/" in key:
            self.person[dst] = self.person.pop(key)
        self.person_wrote([src, dst])

    # -- the guarantees --
    def check_links(self, before, after) -> None:
        for key, kinds in before.items():
            if key not in after:
                continue
            for markdown, targets in kinds.items():
                now = after[key][markdown]
                if self.path_of(key) == "LTM/LTM Index.md":  # grouped by project: a line may go in the middle
                    gone = [t for t in targets if t is not None and t not in now]
                    assert not gone, f"a link in LTM/LTM Index.md lost its target: {gone}"
                    continue
                for i, target in enumerate(targets[: len(now)]):
                    assert target is None or now[i] == target, (
                        f"a link in {self.path_of(key)} changed its target: {target} -> {now[i]}"
                    )

    @invariant()
    def one_path_per_memory(self):
        on_disk = self.ids_on_disk()
        dupes = {i: ps for i, ps in on_disk.items() if len(ps) > 1}
        assert not dupes, f"one memory on several paths: {dupes}"
        lost = set(self.token) - set(on_disk)
        assert not lost, f"memories gone from the vault: {lost}"

    @invariant()
    def no_superseded_answer(self):
        gone = self.superseded_ids()

        def check(where: str, mid: str | None, rel: str | None) -> None:
            assert mid not in gone, f"{where} answers with superseded memory {rel}"
            if rel:
                data = self.own_text(rel)
                if mid not in gone:
                    bad = [w for w, said in self.stale.items() if mid not in said and re.search(rf"\b{w}\b", data)]
                    assert not bad, f"{where} answers with {rel}, which holds superseded fact(s) {bad}"

        for word in sorted(self.stale):
            for hit in self.svc.search(word, limit=50, all_projects=True)["results"]:
                check(f"search {word!r}", hit["id"], hit["path"])
            for inc in self.svc.brief(word, all_projects=True)["included"]:
                check(f"brief {word!r}", inc["id"], inc["path"])
        for item in self.svc.review(limit=100):
            check("review", item["id"], item["path"])

    @invariant()
    def archive_is_searchable(self):
        gone = self.superseded_ids()
        for mid in self.rows(("archive",)):
            if not ARCHIVE_SEARCH_FIXED and mid in gone:
                continue
            rel = self.path_of(mid)
            words = (
                [self.token[mid]]
                if self.token.get(mid)
                else re.findall(r"\bmvq\d+z\b", self.own_text(rel) if rel else "")
            )
            if not words:
                continue
            # the archive's own search shows replaced facts too (docs/bridge-api.md)
            hits = self.svc.search(words[0], scope="archive", limit=50, all_projects=True)["results"]
            assert mid in {h["id"] for h in hits}, f"archived {rel} not found by an archive search for {words[0]!r}"

    @invariant()
    def projects_stay(self):
        """No operation moves a memory to another project; each project's search and briefing
        hold its memories and shared ones only."""
        for mid, want in self.project.items():
            rel = self.path_of(mid)
            if rel is None:
                continue
            got = self.disk()[rel][1].fields.project
            assert (got or "") == (want or ""), f"{rel} moved from project {want!r} to {got!r}"
        for word in sorted({w for w in self.token.values() if w})[:3]:
            for project in PROJECTS:
                for hit in self.svc.search(word, limit=50, project=project)["results"]:
                    assert hit["project"] in (project, None), f"search in {project!r} answers with {hit['path']}"

    @invariant()
    def index_equals_rebuild(self):
        from vault_sync.index.store import IndexStore
        from vault_sync.index.sync import Indexer

        path = self.tmp / "rebuild.sqlite3"  # beside the vault, not in it
        store = IndexStore(path)
        try:
            Indexer(store, self.svc.layout, self.svc.indexer.max_note_bytes).reconcile(rebuild=True)
            assert self.svc.store.canonical_dump() == store.canonical_dump(), "index differs from a rebuild"
        finally:
            store.close()
            for leftover in self.tmp.glob("rebuild.sqlite3*"):
                leftover.unlink()

    @invariant()
    def person_bytes_kept(self):
        for key, want in self.person.items():
            rel = self.path_of(key)
            assert rel is not None, f"the person's note {key} is gone"
            got = masked((self.vault / rel).read_bytes())
            assert got == want, f"bytes the person owns changed in {rel}:\n--- want\n{want}\n--- got\n{got}"


TestLifecycleModel = LifecycleMachine.TestCase
TestLifecycleModel.settings = settings(
    max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None, suppress_health_check=list(HealthCheck)
)
