"""Resolving links the way Obsidian does, from the index's note and attachment paths.

The rules and the Obsidian help pages they come from are in docs/links.md. Aliases are not
resolved: Obsidian only offers them in the link picker, [[Alias]] stays unresolved.

Resolution is computed from the current set of notes rather than stored per link, so
adding or removing a note never leaves stale resolutions behind (Index = f(vault)).
"""

from __future__ import annotations

import posixpath
from collections import ChainMap, defaultdict
from typing import TYPE_CHECKING, Any, Mapping, cast

from ..links import strip_md

if TYPE_CHECKING:
    from .store import IndexStore

MAX_LAYERS = 32  # moves stacked on a resolver before its maps are flattened again


class Resolver:
    def __init__(self, paths: list[str], files: list[str] | None = None):
        by_name: dict[str, list[str]] = defaultdict(list)
        for p in paths:
            by_name[self._stem(p)].append(p)
        # maps, or layers of maps after moves (see `changed`); a None path is a removed note
        self.by_path: Mapping[str, str | None] = {p.lower(): p for p in paths}
        self.by_name: Mapping[str, list[str]] = by_name
        # attachments: any other file in the vault, linked with its extension
        self.file_by_path = {f.lower(): f for f in files or []}
        self.file_by_name: dict[str, list[str]] = defaultdict(list)
        for f in files or []:
            self.file_by_name[f[f.rfind("/") + 1:].lower()].append(f)

    def changed(self, added: str | None = None, removed: str | None = None) -> "Resolver":
        """A new resolver with one path added and/or removed; this one is left as it was
        (a caller may still hold it to read what links meant before a move).

        The change is a small layer over this resolver's maps rather than a copy of them,
        which costs O(notes) per move on a large vault; layers are flattened now and then.
        """
        paths: dict[str, str | None] = {}  # None: removed
        names: dict[str, list[str]] = {}
        if removed:
            paths[removed.lower()] = None
            stem = self._stem(removed)
            names[stem] = [p for p in self.by_name.get(stem, []) if p != removed]
        if added:
            paths[added.lower()] = added
            stem = self._stem(added)
            names[stem] = [*names.get(stem, self.by_name.get(stem, [])), added]
        new = Resolver.__new__(Resolver)
        new.file_by_path = self.file_by_path
        new.file_by_name = self.file_by_name
        new.by_path = _layer(paths, self.by_path)
        new.by_name = _layer(names, self.by_name)
        return new

    @staticmethod
    def _stem(path: str) -> str:
        return strip_md(path[path.rfind("/") + 1:]).lower()

    def shortest_target(self, path: str, min_parts: int = 1) -> str:
        """The shortest link target that means the note at `path` from any note in the vault:
        its name when no other note has that name, else the shortest end of its path no other
        note's path ends with, else the whole path (each without .md); with at least
        `min_parts` parts (2: keep a folder where one was written)."""
        parts = strip_md(path).split("/")
        others = [c.lower() for c in self.by_name.get(self._stem(path), []) if c.lower() != path.lower()]
        for k in range(max(1, min_parts), len(parts)):
            end = ("/" + "/".join(parts[-k:]) + ".md").lower()
            if not any(("/" + c).endswith(end) for c in others):
                return "/".join(parts[-k:])
        return "/".join(parts)

    @staticmethod
    def _rank(candidates: list[str]) -> list[str]:
        # Obsidian's tie-break for a shared name: the shortest path first
        return sorted(candidates, key=lambda p: (p.count("/"), len(p), p))

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

    def _find(self, t: str, source: str, markdown: bool, ext: str, by_path: Mapping[str, Any],
              by_name: Mapping[str, Any]) -> str | None:
        folder = posixpath.dirname(source)
        if markdown or t.startswith(("./", "../")):
            # Markdown links are relative to the source note, then to the vault root
            rel = posixpath.normpath(posixpath.join(folder, t)) if folder else posixpath.normpath(t)
            hit = by_path.get(rel.lower() + ext)
            if hit:
                return str(hit)
        hit = by_path.get(t.lstrip("/").lower() + ext)
        if hit:
            return str(hit)
        name = t.rsplit("/", 1)[-1].lower()
        candidates = by_name.get(name, [])
        if "/" in t:
            suffix = "/" + t.lstrip("/").lower() + ext
            candidates = [c for c in candidates if ("/" + c.lower()).endswith(suffix)]
        if not candidates:
            return None
        if len(candidates) == 1:
            return str(candidates[0])
        same_folder = [c for c in candidates if posixpath.dirname(c) == folder]
        return (same_folder or self._rank(candidates))[0]


def _layer(top: dict[str, Any], below: Mapping[str, Any]) -> Mapping[str, Any]:
    maps = [top, *below.maps] if isinstance(below, ChainMap) else [top, below]
    if len(maps) <= MAX_LAYERS:
        return ChainMap(*maps)
    flat: dict[str, Any] = {}
    for m in reversed(maps):
        flat.update(m)
    return {k: v for k, v in flat.items() if v is not None}


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
