"""Reading a note: raw bytes -> typed owned fields, the person's keys, links, problems.

Never raises on content: anything we cannot read becomes a recorded problem and a safe
reading. A "blocking" problem means background writes must leave the note alone.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, overload

from . import links as linkmod
from .dates import parse_datetime
from .fmblock import UnclosedFrontmatter, YamlProblem, find_block, load_frontmatter
from .limits import MAX_STRENGTH, MIN_STRENGTH
from .projects import read_project

OWNED_KEYS = (
    "id",
    "tags",
    "created",
    "last_used",
    "use_count",
    "uses_by_device",
    "strength",
    "status",
    "decay_score",
    "review_priority",
    "review_on",
    "archive_on",
    "review_count",
    "cross_domain_count",
    "promoted_at",
    "archived_at",
    "archived_from",
    "related",
    "text_hashes",
)
# uses per device (uses.py): {base: n, <device id>: n, ...}
USES_KEY = "uses_by_device"
USES_BASE = "base"
MAX_USES_ENTRIES = 64  # a map larger than this is not ours: ignored, the note counts as base only
STATUSES = ("active", "promoted", "archived", "superseded")
_WIKI = re.compile(r"\[\[[^\[\]\n]+\]\]")


@dataclass
class Fields:
    """The keys we own, read safely. Defaults are what a missing key means."""

    id: str | None = None
    tags: list[str] = field(default_factory=list)
    created: datetime | None = None
    last_used: datetime | None = None
    use_count: int = 1
    uses_by_device: dict[str, int] | None = None  # where the uses came from (uses.py)
    strength: float = 1.0
    status: str = "active"
    decay_score: float | None = None
    review_priority: float | None = None
    review_count: int = 0
    cross_domain_count: int = 0
    promoted_at: datetime | None = None
    archived_at: datetime | None = None
    related: list[str] = field(default_factory=list)
    pinned: bool = False
    aliases: list[str] = field(default_factory=list)
    project: str | None = None  # a person's key: None is shared (projects.py)


@dataclass
class Problem:
    cause: str
    blocking: bool = True


@dataclass
class Note:
    path: str  # vault-relative, forward slashes
    checksum: str
    size: int
    text: str  # decoded text without BOM ("" when undecodable)
    bom: bool
    has_frontmatter: bool
    frontmatter: dict[str, Any]
    fields: Fields
    body: str
    title: str
    links: list[linkmod.Link]
    inline_tags: list[str]
    problems: list[Problem]

    @property
    def writable(self) -> bool:
        """Background writes may touch this note (no blocking problem)."""
        return not any(p.blocking for p in self.problems)

    @property
    def all_tags(self) -> list[str]:
        seen: dict[str, None] = {}
        for t in [*self.fields.tags, *self.inline_tags]:
            seen.setdefault(t, None)
        return list(seen)


def checksum_of(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def stem_of(path: str) -> str:
    """The note's name: its file name without `.md`."""
    return linkmod.strip_md(path[path.rfind("/") + 1 :])  # a vault path: no "." or "//" parts


def parse_note(path: str, data: bytes) -> Note:
    problems: list[Problem] = []
    bom = data.startswith(b"\xef\xbb\xbf")
    raw = data[3:] if bom else data
    text = ""
    if b"\x00" in raw:
        problems.append(Problem("binary content (NUL bytes) in a .md file"))
    else:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(Problem(f"not valid UTF-8 (byte {exc.start + (3 if bom else 0)})"))
    if not problems and not text.strip():
        problems.append(Problem("empty note"))
    frontmatter: dict[str, Any] = {}
    has_fm = False
    body = text
    if text:
        try:
            block = find_block(text)
        except UnclosedFrontmatter as exc:
            problems.append(Problem(str(exc)))
            block = None
        if block:
            has_fm = True
            body = text[block.body_start :]
            frontmatter = _load_frontmatter(text[block.yaml_start : block.yaml_end], problems)
    fields = read_fields(owned_view(frontmatter, problems), problems)
    note_links, inline_tags, h1 = linkmod.extract(body) if text else ([], [], None)
    return Note(
        path=path,
        checksum=checksum_of(data),
        size=len(data),
        text=text,
        bom=bom,
        has_frontmatter=has_fm,
        frontmatter=frontmatter,
        fields=fields,
        body=body,
        title=h1 or stem_of(path),
        links=note_links,
        inline_tags=inline_tags,
        problems=problems,
    )


def unreadable_note(path: str, size: int, cause: str) -> Note:
    """A note we did not read (too large, vanished, no permission): indexed by name only."""
    return Note(path, "", size, "", False, False, {}, Fields(), "", stem_of(path), [], [], [Problem(cause)])


def _load_frontmatter(yaml_text: str, problems: list[Problem]) -> dict[str, Any]:
    try:
        loaded, dupes = load_frontmatter(yaml_text)
    except YamlProblem as exc:
        problems.append(Problem(str(exc)))
        return {}
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        problems.append(Problem("frontmatter is not a mapping of keys to values"))
        return {}
    if dupes:
        problems.append(Problem(f"duplicate frontmatter key(s): {', '.join(dupes)}"))
    return {str(k): v for k, v in loaded.items()}


def owned_spellings(fm: dict[str, Any]) -> dict[str, list[str]]:
    """Owned keys written with capitals (`Decay_Score`, `USE_COUNT`, `Tags`): lower-case name ->
    the spellings found."""
    out: dict[str, list[str]] = {}
    for key in fm:
        low = key.lower()
        if key != low and low in OWNED_KEYS:
            out.setdefault(low, []).append(key)
    return out


def owned_view(fm: dict[str, Any], problems: list[Problem]) -> dict[str, Any]:
    """The frontmatter as the owned fields are read: a capitalised owned key counts as the
    key (and is written back under the person's spelling, patch.py), reported so the person
    knows; two spellings of one key block writes (which one would be meant?)."""
    spellings = owned_spellings(fm)
    if not spellings:
        return fm
    view = dict(fm)
    for low, keys in spellings.items():
        if low in fm or len(keys) > 1:
            both = ", ".join(([low] if low in fm else []) + keys)
            problems.append(Problem(f"{both}: one key written several ways; keep one of them"))
            continue
        view[low] = fm[keys[0]]
        problems.append(
            Problem(
                f"{keys[0]}: read as {low} (mnemovault's keys are lower-case); written back as {keys[0]}",
                blocking=False,
            )
        )
    return view


def _show(value: Any) -> str:
    """A value for a problem message: short, whatever the person wrote."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _int(fm: dict[str, Any], key: str, default: int, lo: int, hi: int, problems: list[Problem]) -> int:
    value = fm.get(key)
    if value is None:
        return default
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or isinstance(value, float)
        and not value.is_integer()
    ):
        problems.append(Problem(f"{key}: {_show(value)} is not a whole number"))
        return default
    if not lo <= value <= hi:
        problems.append(Problem(f"{key}: {value} is out of range {lo}-{hi}"))
        return int(min(max(value, lo), hi))
    return int(value)


@overload
def _float(
    fm: dict[str, Any], key: str, default: float, lo: float, hi: float, problems: list[Problem], blocking: bool = True
) -> float: ...
@overload
def _float(
    fm: dict[str, Any], key: str, default: None, lo: float, hi: float, problems: list[Problem], blocking: bool = True
) -> float | None: ...
def _float(
    fm: dict[str, Any],
    key: str,
    default: float | None,
    lo: float,
    hi: float,
    problems: list[Problem],
    blocking: bool = True,
) -> float | None:
    value = fm.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        problems.append(Problem(f"{key}: {_show(value)} is not a number", blocking))
        return default
    if not lo <= value <= hi:
        problems.append(Problem(f"{key}: {value} is out of range {lo}-{hi}", blocking))
        return float(min(max(value, lo), hi))
    return float(value)


def _date(fm: dict[str, Any], key: str, problems: list[Problem]) -> datetime | None:
    value = fm.get(key)
    if value is None or value == "":
        return None
    parsed = parse_datetime(value)
    if parsed is None:
        problems.append(Problem(f"{key}: {_show(value)} is not a date"))
    return parsed


def _str_list(fm: dict[str, Any], key: str, problems: list[Problem]) -> list[str]:
    value = fm.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        if key == "related":  # note names hold spaces: split on the links, else on commas
            parts = _WIKI.findall(value) or [p.strip() for p in value.split(",") if p.strip()]
        else:
            parts = [p.strip() for p in re.split(r"[,\s]+", value) if p.strip()]
        if len(parts) > 1:
            problems.append(Problem(f"{key}: the text {_show(value)} read as the list {_show(parts)}", blocking=False))
        return parts
    if isinstance(value, list) and all(
        v is None or isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value
    ):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    problems.append(Problem(f"{key}: {_show(value)} is not a list of text"))
    return []


def read_fields(fm: dict[str, Any], problems: list[Problem]) -> Fields:
    f = Fields()
    raw_id = fm.get("id")
    if raw_id is not None:
        if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool) and str(raw_id).strip():
            f.id = str(raw_id).strip()
        else:
            problems.append(Problem(f"id: {_show(raw_id)} is not a usable id"))
    f.tags = [t.lstrip("#") for t in _str_list(fm, "tags", problems)]
    f.related = _str_list(fm, "related", problems)
    f.aliases = [a for a in _str_list_lenient(fm.get("aliases"))]
    f.created = _date(fm, "created", problems)
    f.last_used = _date(fm, "last_used", problems)
    f.promoted_at = _date(fm, "promoted_at", problems)
    f.archived_at = _date(fm, "archived_at", problems)
    f.use_count = _int(fm, "use_count", 1, 0, 10**9, problems)
    f.uses_by_device = read_uses_map(fm.get(USES_KEY))
    if f.uses_by_device is None and fm.get(USES_KEY) is not None:
        problems.append(
            Problem(f"{USES_KEY}: {_show(fm.get(USES_KEY))} is not a map of devices to counts; read as none", False)
        )
    f.strength = _float(fm, "strength", 1.0, MIN_STRENGTH, MAX_STRENGTH, problems)
    f.review_count = _int(fm, "review_count", 0, 0, 10**9, problems)
    f.cross_domain_count = _int(fm, "cross_domain_count", 0, 0, 10**9, problems)
    # outputs we write ourselves: a bad value there is simply recomputed, not a blocker
    f.decay_score = _float(fm, "decay_score", None, 0.0, 1e9, problems, blocking=False)
    f.review_priority = _float(fm, "review_priority", None, 0.0, 1.0, problems, blocking=False)
    status = fm.get("status")
    if status is not None:
        if isinstance(status, str) and status.strip().lower() in STATUSES:
            f.status = status.strip().lower()
        else:
            problems.append(Problem(f"status: {_show(status)} is not one of {', '.join(STATUSES)}"))
    pinned = fm.get("pinned")
    f.pinned = pinned is True or (isinstance(pinned, str) and pinned.strip().lower() in ("true", "yes"))
    f.project, problem = read_project(fm.get("project"))
    if problem:
        problems.append(Problem(problem, blocking=False))
    return f


def read_uses_map(value: Any) -> dict[str, int] | None:
    """The map as written, or None when absent or not a map of names to whole numbers."""
    if not isinstance(value, dict) or not value or len(value) > MAX_USES_ENTRIES:
        return None
    out: dict[str, int] = {}
    for k, v in value.items():
        if not isinstance(k, str) or not k.strip() or isinstance(v, bool) or not isinstance(v, int):
            return None
        if k != USES_BASE and v < 0:  # only base may be negative (a hand-lowered count)
            return None
        out[k.strip()] = v
    return out


def _str_list_lenient(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, (str, int, float))]
    return []


# -- hashes and frontmatter links, as the index stores them --
def content_hash(note: Note) -> str:
    text = f"{note.title}\n{' '.join(note.all_tags)}\n{note.body}"
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def normalized_hash(text: str) -> str:
    """Same text whatever the whitespace and case (exact-duplicate detection at save)."""
    # ASCII text casefolds as it lowers, and lower() is the faster of the two
    norm = " ".join(text.split()).lower() if text.isascii() else " ".join(text.split()).casefold()
    return hashlib.blake2b(norm.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


_WORD = re.compile(r"\w+")
EMBED_TEXT_FORM = 2  # bumped when embed_text changes what it encodes (caches of vectors keyed by note content)


def embed_text(title: str, tags: list[str], body: str) -> str:
    """What a note's vector encodes. A title that is only the body's first words (the file
    name a saved memory gets) is left out: said twice it would weigh the opening twice and
    cost the model ~1.3x the tokens of a short memory. A title repeated by a heading stays:
    a person chose it, and known-item search ranks better with it."""
    if title and title_repeats_body(title, body):
        title = ""
    return f"{title}\n{' '.join(tags)}\n{body}".strip()


def title_repeats_body(title: str, body: str) -> bool:
    """True when the body's opening words are the title's words (case and punctuation aside),
    also with the " 2" a name taken twice gets (names.unique_stem); never for a heading."""
    words = _WORD.findall(title.casefold())
    if not words or body.lstrip().startswith("#"):
        return False
    start = _WORD.findall(body[: 4 * len(title) + 200].casefold())
    if start[: len(words)] == words:
        return True
    return len(words) > 1 and words[-1].isdigit() and start[: len(words) - 1] == words[:-1]


def related_links(note: Note) -> list[linkmod.Link]:
    """Wikilinks in frontmatter values ("[[B]]" items): `related` ones, and typed relations by key."""
    out = []
    for key, value in note.frontmatter.items():
        items = value if isinstance(value, list) else [value]
        for item in items:
            if not isinstance(item, str) or "[[" not in item:
                continue
            for m in linkmod.WIKILINK.finditer(item):  # "[[A]] and [[B]]": both are links
                link = linkmod.parse_wikilink(m.group(1), False)
                if link:
                    out.append(
                        linkmod.Link(
                            link.target,
                            link.subpath,
                            link.alias,
                            "related" if key == "related" else f"related:{key}",
                            False,
                        )
                    )
    return out
