"""Resolving links the way Obsidian does, from the index's note and attachment paths.

The rules and the Obsidian help pages they come from are in docs/links.md. Aliases are not
resolved: Obsidian only offers them in the link picker, [[Alias]] stays unresolved.

Resolution is computed from the current set of notes rather than stored per link, so
adding or removing a note never leaves stale resolutions behind (Index = f(vault)).
"""

from __future__ import annotations

import posixpath
import unicodedata
from collections import ChainMap, defaultdict
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Mapping, cast

from ..links import strip_md

if TYPE_CHECKING:
    from .store import IndexStore

MAX_LAYERS = 32  # moves stacked on a resolver before its maps are flattened again


class Resolver:
    def __init__(self, paths: list[str], files: list[str] | None = None):
        by_name: dict[str, list[str]] = defaultdict(list)
        by_path: dict[str, list[str]] = defaultdict(list)
        for p in paths:
            by_name[self._stem(p)].append(p)
            by_path[note_key(p)].append(p)
        # maps, or layers of maps after moves (see `changed`); an empty list is a removed note
        self.by_path: Mapping[str, list[str]] = dict(by_path)
        self.by_name: Mapping[str, list[str]] = dict(by_name)
        # attachments: any other file in the vault, linked with its extension
        self.file_by_path: dict[str, list[str]] = defaultdict(list)
        self.file_by_name: dict[str, list[str]] = defaultdict(list)
        for f in files or []:
            self.file_by_path[name_key(f)].append(f)
            self.file_by_name[name_key(f[f.rfind("/") + 1 :])].append(f)

    def changed(self, added: str | None = None, removed: str | None = None) -> "Resolver":
        """A new resolver with one path added and/or removed; this one is left as it was
        (a caller may still hold it to read what links meant before a move).

        The change is a small layer over this resolver's maps rather than a copy of them,
        which costs O(notes) per move on a large vault; layers are flattened now and then.
        """
        paths: dict[str, list[str]] = {}
        names: dict[str, list[str]] = {}
        for key, table, stem_of in ((paths, self.by_path, note_key), (names, self.by_name, self._stem)):
            if removed:
                k = stem_of(removed)
                key[k] = [p for p in table.get(k, []) if p != removed]
            if added:
                k = stem_of(added)
                key[k] = [*key.get(k, table.get(k, [])), added]
        new = Resolver.__new__(Resolver)
        new.file_by_path = self.file_by_path
        new.file_by_name = self.file_by_name
        new.by_path = _layer(paths, self.by_path)
        new.by_name = _layer(names, self.by_name)
        return new

    def has(self, path: str) -> bool:
        """True when `path` is a note of this vault."""
        return path in self.by_path.get(note_key(path), [])

    def note_paths(self) -> list[str]:
        return [p for ps in self.by_name.values() for p in ps]

    def file_paths(self) -> list[str]:
        return [f for fs in self.file_by_path.values() for f in fs]

    @staticmethod
    def _stem(path: str) -> str:
        return name_key(strip_md(path[path.rfind("/") + 1 :]))

    def shortest_target(self, path: str, min_parts: int = 1) -> str:
        """The shortest link target that means the note at `path` from any note in the vault:
        its name when no other note has that name, else the shortest end of its path no other
        note's path ends with, else the whole path (each without .md); with at least
        `min_parts` parts (2: keep a folder where one was written)."""
        parts = strip_md(path).split("/")
        others = ["/" + note_key(c) for c in self.by_name.get(self._stem(path), []) if c != path]
        for k in range(max(1, min_parts), len(parts)):
            end = "/" + note_key("/".join(parts[-k:]) + ".md")
            if not any(c.endswith(end) for c in others):
                return "/".join(parts[-k:])
        return "/".join(parts)

    def resolve(self, target: str, source: str, markdown: bool = False) -> str | None:
        """The vault path a link target points at (a note or an attachment), or None (dangling)."""
        if not target:
            return source  # [[#heading]] is a link into the same note
        t = target.strip().replace("\\", "/")
        note_only = t.lower().endswith(".md")
        if note_only:
            t = t[:-3]
        hit = self._find(t, source, markdown, ".md", self.by_path, self.by_name)
        if hit is None and not note_only and "." in t.rsplit("/", 1)[-1]:
            hit = self._find(t, source, markdown, "", self.file_by_path, self.file_by_name)
        return hit

    def _find(
        self,
        t: str,
        source: str,
        markdown: bool,
        ext: str,
        by_path: Mapping[str, list[str]],
        by_name: Mapping[str, list[str]],
    ) -> str | None:
        folder = source.rpartition("/")[0]
        if markdown or t.startswith(("./", "../")):
            # Markdown links are relative to the source note, then to the vault root
            rel = posixpath.normpath(posixpath.join(folder, t)) if folder else posixpath.normpath(t)
            hit = pick(by_path.get(name_key(rel + ext), []), rel + ext, folder)
            if hit:
                return hit
        exact = t.lstrip("/") + ext
        hit = pick(by_path.get(name_key(exact), []), exact, folder)
        if hit:
            return hit
        name = t.rsplit("/", 1)[-1]
        candidates = by_name.get(name_key(name), [])
        if "/" in t:
            suffix = "/" + name_key(exact)
            candidates = [c for c in candidates if ("/" + name_key(c)).endswith(suffix)]
        return pick(candidates, name + ext, folder)


@lru_cache(maxsize=1 << 16)  # the same names are looked up again and again (a dangling report: every link)
def name_key(name: str) -> str:
    """A name or path as links match it: composed Unicode (NFC), lower case, each part without
    the spaces around it (a file `Note .md` is linked as [[Note]])."""
    key = name.lower() if name.isascii() else unicodedata.normalize("NFC", name).lower()
    return "/".join(p.strip() for p in key.split("/")) if " " in key or "\t" in key else key


def note_key(path: str) -> str:
    """`name_key` of a note's path, its `.md` kept."""
    return name_key(strip_md(path)) + ".md"


def pick(candidates: list[str], written: str, folder: str) -> str | None:
    """The note (or file) a link means among those its target matches, by Obsidian's
    tie-break (docs/links.md, "Same-name ties"): the one whose path is spelled as written,
    else one in the linking note's folder, else the shortest path; then the one whose name is
    spelled as written, then path order.
    The resolver, the dangling-link report and the rewrites on a move all decide here."""
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    if written in candidates:  # a path spelled exactly so, before its case or spacing variants
        return written
    here = [c for c in candidates if c.rpartition("/")[0] == folder]
    name = written.rsplit("/", 1)[-1]
    return min(here or candidates, key=lambda c: (_js_length(c), c.rsplit("/", 1)[-1] != name, c))


def _js_length(path: str) -> int:
    # Obsidian compares path lengths as JavaScript does: in UTF-16 code units
    return len(path.encode("utf-16-le")) // 2


def link_names(stem: str) -> list[str]:
    """The lower-cased last parts a link to a note named `stem` may be stored under (as
    written: composed or decomposed Unicode, with or without the spaces around it, with or
    without .md), for finding its linking notes in the index."""
    forms = {stem.lower(), stem.strip().lower()}
    forms |= {unicodedata.normalize(f, s) for f in ("NFC", "NFD") for s in list(forms)}
    return sorted(forms | {f + ".md" for f in forms})


def _layer(top: dict[str, Any], below: Mapping[str, Any]) -> Mapping[str, Any]:
    maps = [top, *below.maps] if isinstance(below, ChainMap) else [top, below]
    if len(maps) <= MAX_LAYERS:
        return ChainMap(*maps)
    flat: dict[str, Any] = {}
    for m in reversed(maps):
        flat.update(m)
    return {k: v for k, v in flat.items() if v}


def build_resolver(store: "IndexStore") -> Resolver:
    """The resolver for the current set of notes; rebuilt only when the set of paths changed."""
    version = store.names_version
    cached = store.resolver_cache
    if cached is not None and cached[0] == version:
        return cast(Resolver, cached[1])
    paths = [r[0] for r in store.query("SELECT path FROM notes")]
    resolver = Resolver(paths, store.attachment_paths())
    store.resolver_cache = (version, resolver)
    return resolver
