"""Resolving [[links]] the way Obsidian does, from the index's names and paths.

Resolution is computed from the current set of notes rather than stored per link, so
adding or removing a note never leaves stale resolutions behind (Index = f(vault)).
"""

from __future__ import annotations

import posixpath
from collections import defaultdict


class Resolver:
    def __init__(self, paths: list[str], aliases: dict[str, list[str]] | None = None):
        self.by_path = {p.lower(): p for p in paths}
        self.by_name: dict[str, list[str]] = defaultdict(list)
        for p in paths:
            stem = p.rsplit("/", 1)[-1]
            stem = stem[:-3] if stem.lower().endswith(".md") else stem
            self.by_name[stem.lower()].append(p)
        for names in self.by_name.values():
            names.sort(key=lambda p: (p.count("/"), len(p), p))
        self.by_alias: dict[str, list[str]] = defaultdict(list)
        for alias, owners in (aliases or {}).items():
            self.by_alias[alias.lower()] = sorted(owners)

    def resolve(self, target: str, source: str, markdown: bool = False) -> str | None:
        """The vault path a link target points at, or None (dangling)."""
        if not target:
            return source  # [[#heading]] is a link into the same note
        t = target.strip().replace("\\", "/")
        if t.lower().endswith(".md"):
            t = t[:-3]
        folder = posixpath.dirname(source)
        if markdown or t.startswith(("./", "../")):
            # Markdown links are relative to the source note, then to the vault root
            rel = posixpath.normpath(posixpath.join(folder, t)) if folder else posixpath.normpath(t)
            hit = self.by_path.get(rel.lower() + ".md")
            if hit:
                return hit
        hit = self.by_path.get(t.lstrip("/").lower() + ".md")
        if hit:
            return hit
        name = t.rsplit("/", 1)[-1].lower()
        candidates = self.by_name.get(name, [])
        if "/" in t:
            suffix = "/" + t.lstrip("/").lower() + ".md"
            candidates = [c for c in candidates if ("/" + c.lower()).endswith(suffix)]
        if candidates:
            if len(candidates) == 1:
                return candidates[0]
            same_folder = [c for c in candidates if posixpath.dirname(c) == folder]
            return (same_folder or candidates)[0]
        owners = self.by_alias.get(t.lower())
        return owners[0] if owners else None


def build_resolver(store) -> Resolver:
    paths = [r[0] for r in store.query("SELECT path FROM notes")]
    aliases: dict[str, list[str]] = defaultdict(list)
    for alias, path in store.query("SELECT a.alias, n.path FROM aliases a JOIN notes n ON n.rowid = a.note"):
        aliases[alias].append(path)
    return Resolver(paths, aliases)
