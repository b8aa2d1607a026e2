"""The vault's layout: which files are notes, what kind each is, safe paths, the walk."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from .errors import PathOutsideVault
from .limits import REF_CHARS, quote
from .safe_files import check_real_folder, open_folder, replace_file
from .writer import is_temp_file

if TYPE_CHECKING:
    from .settings import Settings

# Conflict copies made by file-sync tools; never indexed as notes of their own.
_CONFLICT_PATTERNS = [
    re.compile(r"^(?P<base>.+?)\.sync-conflict-\d{8}-\d{6}(?:-[A-Z0-9]+)?(?P<ext>\.md)$", re.I),  # Syncthing
    re.compile(r"^(?P<base>.+?) \([^()]*conflicted copy[^()]*\)(?P<ext>\.md)$", re.I),  # Dropbox
    re.compile(r"^(?P<base>.+?) \(Conflict[^()]*\)(?P<ext>\.md)$", re.I),  # Obsidian Sync, Nextcloud
    re.compile(r"^(?P<base>.+?) \(conflict \d+\)(?P<ext>\.md)$", re.I),
    re.compile(r"^(?P<base>.+?)-(?:DESKTOP|LAPTOP)-[A-Z0-9]{5,}(?:-\d+)?(?P<ext>\.md)$"),  # OneDrive
    re.compile(r"^(?P<base>.+?) \[Conflict(?: \d+)?\](?P<ext>\.md)$", re.I),  # Google Drive
    re.compile(r"^(?P<base>.+?)\.icloud-conflict[^.]*(?P<ext>\.md)$", re.I),
]


# the same names around any extension: copies of the engine's own files (.mnemovault/devices/*.json)
_ANY_EXT_PATTERNS = [
    re.compile(p.pattern.replace(r"(?P<ext>\.md)", r"(?P<ext>\.[A-Za-z0-9]+)"), p.flags) for p in _CONFLICT_PATTERNS
]


def conflict_original(name: str, any_ext: bool = False) -> str | None:
    """For a conflict copy's file name, the name of the note (any file with `any_ext`) it
    copies; else None."""
    low = name.lower()
    if "conflict" not in low and "-desktop-" not in low and "-laptop-" not in low:
        return None  # every pattern needs one of these: a walk of 10k names skips 7 regexes each
    for pattern in _ANY_EXT_PATTERNS if any_ext else _CONFLICT_PATTERNS:
        m = pattern.match(name)
        if m:
            return m.group("base") + m.group("ext")
    return None


def outside_reason(path: str) -> str | None:
    """Why a path with / between folders cannot name a place inside the vault: "absolute" (a
    leading / or a drive letter) or "parent" (a '..' part); None for neither. The one test
    behind Layout.safe_rel and editor_hold.check_path; each words its own error."""
    if path.startswith("/") or re.match(r"[A-Za-z]:", path):
        return "absolute"
    if ".." in path.split("/"):
        return "parent"
    return None


LTM_INDEX_NAME = "LTM Index"  # the note listing the long-term memories (ops/ltm_index.py writes it)


@dataclass(frozen=True)
class Layout:
    root: Path
    stm: str = "STM"
    ltm: str = "LTM"
    archive: str = "Archive"

    @classmethod
    def from_settings(cls, s: "Settings") -> "Layout":
        return cls(s.vault_path(), s.stm_dir, s.ltm_dir, s.archive_dir)

    @property
    def index_note(self) -> str:
        """The LTM index note's path: an engine's list, never a memory of its own."""
        return f"{self.ltm}/{LTM_INDEX_NAME}.md"

    def kind_of(self, rel: str) -> str:
        top = rel.split("/", 1)[0]
        if "/" not in rel:
            return "note"
        if top == self.stm:
            return "stm"
        if top == self.ltm:
            return "ltm"
        if top == self.archive:
            return "archive"
        return "note"

    def abs(self, rel: str) -> Path:
        return self.root / PurePosixPath(rel)

    def own_folders(self) -> list[str]:
        """The folders the engine writes in: the memory folders and its hidden one."""
        return [self.stm, self.ltm, self.archive, ".mnemovault"]

    def check_own_folders(self) -> None:
        """Each of the vault's own folders is a real folder inside the vault (or missing, to be
        made): else UnsafePath saying which and why, and the engine does not start."""
        for folder in self.own_folders():
            check_real_folder(self.root, folder.strip("/"), f"{folder.strip('/')}/")

    def make_folder(self, folder: str) -> None:
        """Make the vault folder `folder`, each step a real folder, never through a link (UnsafePath)."""
        os.close(open_folder(self.root, folder))

    def folder_for(self, rel: str) -> None:
        """Make the folder holding the vault file `rel` (see make_folder) before a write there."""
        self.make_folder(rel.rpartition("/")[0])

    def check_parent(self, rel: str) -> None:
        """The folders holding `rel` are real folders inside the vault (UnsafePath if one is a link)."""
        check_real_folder(self.root, rel.rpartition("/")[0])

    def rel(self, path: Path | str) -> str | None:
        """Vault-relative posix path of an absolute path inside the vault, else None."""
        try:
            rel = Path(os.path.abspath(path)).relative_to(self.root)
        except ValueError:
            return None
        return rel.as_posix()

    def is_ignored(self, rel: str) -> bool:
        """Dot-folders, dot-files, temp files: not part of the vault's notes."""
        return any(part.startswith(".") for part in rel.split("/"))

    def safe_rel(self, user_path: str) -> str:
        """Validate a vault-relative path from a tool argument; raises PathOutsideVault."""
        if not isinstance(user_path, str) or not user_path.strip():
            raise PathOutsideVault("empty path")
        if "\x00" in user_path:
            raise PathOutsideVault("path contains a NUL byte")
        p = user_path.replace("\\", "/").strip()
        why = outside_reason(p)
        if why == "absolute":
            raise PathOutsideVault(
                f"{quote(user_path, REF_CHARS)}: absolute paths are not accepted; give a path inside the vault"
            )
        if why == "parent":
            raise PathOutsideVault(f"{quote(user_path, REF_CHARS)}: '..' is not allowed; give a path inside the vault")
        parts = [x for x in p.split("/") if x not in ("", ".")]
        if not parts:
            raise PathOutsideVault(f"{quote(user_path, REF_CHARS)} is not a note path")
        if any(len(x.encode("utf-8", "surrogateescape")) > 255 for x in parts) or len(p) > 4000:
            raise PathOutsideVault(
                f"{quote(user_path, REF_CHARS)}: a name in this path is longer than any file system allows"
            )
        rel = "/".join(parts)
        target = self.root / rel
        real_root = os.path.realpath(self.root)
        real = os.path.realpath(target)
        if real != real_root and not real.startswith(real_root + os.sep):
            raise PathOutsideVault(f"{quote(user_path, REF_CHARS)} resolves outside the vault (symlink?)")
        return rel


@dataclass
class Walked:
    files: dict[str, os.stat_result]  # rel path -> stat
    conflicts: dict[str, str]  # rel path of a conflict copy -> rel path of its original
    skipped: dict[str, str]  # rel path -> reason
    temp_files: list[str]  # our leftover temp files (rel)
    attachments: list[str] = field(default_factory=list)  # every other file (rel): link targets


def walk(layout: Layout) -> Walked:
    """Every note in the vault, without following symlinked folders (no loops)."""
    out = Walked({}, {}, {}, [])
    stack = [("", layout.root)]
    while stack:
        prefix, folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            out.skipped[prefix or "."] = f"cannot list folder: {exc.strerror or exc}"
            continue
        for entry in entries:
            name = entry.name
            rel = f"{prefix}{name}"
            if name.startswith("."):
                if is_temp_file(name):
                    out.temp_files.append(rel)
                continue
            try:
                if entry.is_symlink():
                    if name.lower().endswith(".md") or entry.is_dir():
                        out.skipped[rel] = "symbolic link (not followed)"
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append((rel + "/", Path(entry.path)))
                    continue
                if not name.lower().endswith(".md"):
                    out.attachments.append(rel)
                    continue
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                out.skipped[rel] = f"cannot read: {exc.strerror or exc}"
                continue
            original = conflict_original(name)
            if original is not None:
                out.conflicts[rel] = f"{prefix}{original}"
                continue
            out.files[rel] = st
    return out


def init_vault(settings: "Settings") -> Path:
    """Create STM/, LTM/, Archive/ and .mnemovault/config.toml (kept if present); the vault root."""
    root: Path = settings.vault_path()
    layout = Layout.from_settings(settings)
    for name in layout.own_folders():
        layout.make_folder(name)  # a link in place of one: UnsafePath, nothing made through it
    cfg = ".mnemovault/config.toml"
    if not os.path.lexists(layout.abs(cfg)):
        replace_file(
            root,
            cfg,
            b"# mnemovault settings for this vault (env vars MNEMOVAULT_<NAME> override these)\n"
            b'# decay_model = "power_law"\n# half_life_days = 3.0\n# auto_promote = true\n# auto_gc = true\n'
            b"# reinforce_repeats = true  # false: a fact saved again in other words becomes a new memory\n",
        )
    return root
