"""Projects: which memories an answer may hold, and the name a folder maps to.

A memory's project is its frontmatter `project` (a person's key); a memory without one is
shared. A scope is the current project plus shared memories, shared memories alone (no
project), or everything (`all_projects`). Names compare without regard to case, so a folder
`Atlas` and a key `project: atlas` are one project.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Mapping

from .errors import InvalidInput
from .limits import quote

MAX_PROJECT_CHARS = 100
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold(name: str) -> str:
    """A name as SQLite's NOCASE compares it (ASCII letters folded), so Python and SQL agree."""
    return name.translate(_ASCII_LOWER)


@dataclass(frozen=True)
class ProjectScope:
    """The project an operation answers for. `name` None: shared memories only, unless `everything`."""

    name: str | None = None
    everything: bool = False

    @property
    def narrows(self) -> bool:
        return not self.everything

    def admits(self, project: str | None) -> bool:
        """Whether a memory keyed `project` (None: shared) belongs in this scope."""
        if self.everything or project is None:
            return True
        return self.name is not None and fold(project) == fold(self.name)

    def sql(self, alias: str = "n") -> tuple[str, list[object]]:
        """A WHERE part keeping this scope's notes (always true for everything)."""
        if self.everything:
            return "1", []
        if self.name is None:
            return f"{alias}.project IS NULL", []
        return f"({alias}.project IS NULL OR {alias}.project = ? COLLATE NOCASE)", [self.name]

    def describe(self) -> dict[str, Any]:
        """What every scoped answer says about its scope."""
        return {"project": self.name, "all_projects": self.everything}


SHARED = ProjectScope()
EVERYTHING = ProjectScope(everything=True)


def check_project(value: object, what: str = "project") -> str | None:
    """A project name as a caller gave it: text, trimmed; None or "" means shared."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a name (text); got {quote(value, 40)}")
    name = value.strip()
    if not name:
        return None
    if len(name) > MAX_PROJECT_CHARS or any(ch in name for ch in "\n\r\t\x00[]{}#"):
        raise InvalidInput(f"{what} must be a short name without line breaks, brackets or #; got {quote(value, 40)}")
    return name


def scope_of(project: object = None, all_projects: object = False) -> ProjectScope:
    """The scope a caller asked for: `all_projects` true gives everything."""
    if not isinstance(all_projects, bool):
        raise InvalidInput("all_projects must be true or false")
    if all_projects:
        return EVERYTHING
    return ProjectScope(check_project(project))


def read_project(value: object) -> tuple[str | None, str | None]:
    """A note's `project` value: (the name or None for shared, a problem to report or None)."""
    if value is None or isinstance(value, bool):
        return None, None if value is None else f"project: {value!r} is not a name; the memory counts as shared"
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        name = str(value).strip()
        return (name or None), None
    return None, f"project: {str(value)[:60]!r} is not a name; the memory counts as shared"


def folder_project(folder: str | os.PathLike[str], mapping: Mapping[str, str] | None = None) -> str | None:
    """The project a folder stands for: the first of `mapping`'s patterns (a path, or a glob
    such as `~/work/*`) that the folder or one of its parents matches, else the folder's own
    name. A mapping to "" makes that folder shared."""
    path = PurePath(os.path.expanduser(os.fspath(folder)))
    candidates = [path, *path.parents]
    for pattern, name in (mapping or {}).items():
        pat = os.path.expanduser(pattern).rstrip("/\\") or "/"
        for place in candidates:
            text = str(place)
            if text == pat or fnmatch.fnmatchcase(text, pat) or place.name == pattern:
                return check_project(name, f"the project of {pattern}")
    return check_project(path.name) if path.name else None


def same_project(a: str | None, b: str | None) -> bool:
    return fold(a or "") == fold(b or "")


def check_across(project: str | None, olds: list[Any], across_projects: bool, what: str = "supersede") -> None:
    """Refuse to let a memory of one project replace one of another (shared counts as its own)
    unless the caller asked for it: a project's fact must not hide another project's."""
    if across_projects:
        return
    for row in olds:
        if not same_project(project, row["project"]):
            theirs = f"project {row['project']}" if row["project"] else "shared memories"
            ours = f"project {project}" if project else "shared memories"
            raise InvalidInput(
                f"{row['path']} belongs to {theirs}, not {ours}; to {what} across projects, "
                "ask for it explicitly (across_projects=true)"
            )
