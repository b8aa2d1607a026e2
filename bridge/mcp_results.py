"""The MCP tools' result types: fastmcp publishes each as the tool's outputSchema, so a
client knows a result's fields before it calls. The engine still returns plain dicts; these
TypedDicts only describe them (extra keys are allowed and kept, so a new engine field is not an error).
Keys an answer always carries are required; the rest are marked NotRequired."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, with_config
from typing_extensions import NotRequired, TypedDict

# extra keys pass through: fastmcp serializes a result through its type, and a key the type
# does not name must not be dropped from the answer
OPEN = with_config(ConfigDict(extra="allow"))


@OPEN
class Note(TypedDict):
    """A memory or note as the index knows it (frontmatter fields plus its live score)."""

    path: str
    id: str | None
    kind: str
    title: str
    status: NotRequired[str | None]
    tags: NotRequired[list[str]]
    use_count: NotRequired[int | None]
    strength: NotRequired[float | None]
    last_used: NotRequired[str | None]
    created: NotRequired[str | None]
    decay_score: NotRequired[float | None]
    score: NotRequired[float | None]
    review_priority: NotRequired[float | None]
    state: NotRequired[str | None]
    pinned: NotRequired[bool]
    project: NotRequired[str | None]  # null: shared by every project (docs/projects.md)
    problems: NotRequired[list[Any]]


@OPEN
class Link(TypedDict, total=False):
    source: str
    target: str
    kind: str
    subpath: str | None


@OPEN
class FullNote(Note):
    body: str
    links: list[Link]
    backlinks: list[Link]


@OPEN
class ReadItem(TypedDict, total=False):
    """One ref of a batch read: the memory's fields (as FullNote), or `error` when the ref did not resolve."""

    ref: str
    error: str
    path: str
    id: str | None
    kind: str
    title: str
    status: str | None
    tags: list[str]
    created: str | None
    last_used: str | None
    body: str
    links: list[Link]
    backlinks: list[Link]
    links_total: int
    backlinks_total: int


@OPEN
class NotePage(TypedDict):
    """One page of a listing: `next_offset` is the next page's offset, null at the end."""

    items: list[Note]
    total: int
    offset: int
    next_offset: int | None
    project: NotRequired[str | None]  # the project the listing was scoped to (null: shared memories only)
    all_projects: NotRequired[bool]


@OPEN
class Saved(TypedDict):
    saved: bool
    note: NotRequired[Note | None]
    reinforced: NotRequired[bool]
    duplicate_of: NotRequired[str | None]
    already_saved: NotRequired[bool]  # a retried batch: this item was counted by the first attempt
    similarity: NotRequired[float]  # of a reinforced memory to the text saved (1.0: the same text)
    repeat_of: NotRequired[dict[str, Any]]  # the memory this text repeats in other words
    repeat_check: NotRequired[str]  # the repeat check read words only (the model not loaded yet)
    message: NotRequired[str]
    near_duplicates: NotRequired[list[Any]]
    may_supersede: NotRequired[list[Any]]
    may_supersede_hint: NotRequired[str]
    error: NotRequired[str]


@OPEN
class SavedBatch(TypedDict):
    saved: int
    reinforced: int
    refused: int
    results: list[Saved]


@OPEN
class ScoreParts(TypedDict, total=False):
    fts: float | None
    semantic: float | None
    decay: float | None


@OPEN
class Hit(TypedDict):
    path: str
    id: str | None
    title: str
    kind: str
    snippet: NotRequired[str]
    score: float
    parts: NotRequired[ScoreParts]
    review: NotRequired[bool]
    # what an assistant needs to act on a hit: `archived` ones come back with restore_memory(id)
    status: str | None
    created: str | None
    last_used: str | None
    tags: list[str]
    project: NotRequired[str | None]  # the hit's project; null: shared
    superseded_by: NotRequired[str | None]


@OPEN
class SearchResult(TypedDict):
    results: list[Hit]
    semantic: bool
    notice: NotRequired[str | None]
    archived_matches: NotRequired[int]  # a time-bounded search told to leave the archive out: how many it left
    offset: int
    next_offset: int | None  # null: no further page (search ranks the best 200)
    project: NotRequired[str | None]  # the project searched (with shared memories); null: shared only
    all_projects: NotRequired[bool]


@OPEN
class Touched(TypedDict):
    note: Note
    old_score: float | None
    new_score: float | None
    cross_domain: NotRequired[bool]


@OPEN
class Observed(TypedDict):
    observed: list[Touched]
    errors: list[Any]


@OPEN
class Candidate(TypedDict):
    id: str | None
    title: str
    path: str
    score: NotRequired[float | None]
    reason: NotRequired[str]


# a journalled move between folders ("from" is a keyword, hence the call form)
Move = TypedDict("Move", {"id": str | None, "title": str, "from": str, "to": str, "reason": NotRequired[str]})
OPEN(Move)


@OPEN
class CandidatePage(TypedDict):
    items: list[Candidate]
    total: int
    offset: int
    next_offset: int | None


@OPEN
class Promoted(TypedDict):
    """A preview lists candidates (paged); an applied promotion lists the moves it made."""

    dry_run: bool
    candidates: NotRequired[CandidatePage]
    promoted: list[Move]
    errors: NotRequired[list[Any]]
    held: NotRequired[list[str]]  # due, but open in the person's editor: moved on a later run


@OPEN
class GcResult(TypedDict):
    dry_run: bool
    candidates: CandidatePage
    archived: list[Move]
    errors: NotRequired[list[Any]]
    held: NotRequired[list[str]]  # due, but open in the person's editor: archived on a later run


Relation = TypedDict("Relation", {"from": str, "to": str, "type": str, "added": bool})
OPEN(Relation)


@OPEN
class GraphNode(TypedDict, total=False):
    path: str
    id: str | None
    kind: str
    title: str
    status: str | None
    created: str | None
    last_used: str | None


@OPEN
class NodePage(TypedDict):
    items: list[GraphNode]
    total: int
    offset: int
    next_offset: int | None


@OPEN
class EdgePage(TypedDict):
    items: list[Link]
    total: int
    offset: int
    next_offset: int | None


@OPEN
class Graph(TypedDict):
    nodes: NodePage
    edges: EdgePage


@OPEN
class Member(TypedDict):
    id: str | None
    path: str
    title: str


@OPEN
class Cluster(TypedDict):
    id: str
    members: list[Member]
    size: int
    cohesion: float
    action: str
    project: NotRequired[str | None]  # every member's (a cluster never spans projects)


@OPEN
class ClusterPage(TypedDict):
    items: list[Cluster]
    total: int
    offset: int
    next_offset: int | None


@OPEN
class Consolidated(TypedDict):
    applied: bool
    plan: dict[str, Any]
    note: Note | None
    archived: list[Any]
    errors: list[Any]


@OPEN
class NoteText(TypedDict):
    path: str
    text: str
    note: Note | None


@OPEN
class Turn(TypedDict):
    """One memory of a conversation, in the order they were said."""

    path: str
    id: str | None
    title: str
    kind: str
    status: str | None
    said_at: str | None
    text: str
    this: bool


@OPEN
class Thread(TypedDict):
    conversation: str
    path: str
    turns: list[Turn]
    earlier: int
    later: int


@OPEN
class Status(TypedDict):
    vault: str
    index: str
    counts: dict[str, int]
    by_status: NotRequired[dict[str, int]]
    stm_states: NotRequired[dict[str, int]]
    problems: NotRequired[list[Any]]
    conflicts: NotRequired[list[Any]]
    embeddings: NotRequired[dict[str, Any]]
    projects: NotRequired[dict[str, int]]  # memories per project; "" counts the shared ones
    project: NotRequired[str | None]  # this session's project (null: shared)


@OPEN
class SyncReport(TypedDict):
    added: int
    updated: int
    removed: int
    moved: NotRequired[int]
    unchanged: NotRequired[int]
    problems: NotRequired[int]
    conflicts: NotRequired[int]
    seconds: NotRequired[float]


@OPEN
class Briefing(TypedDict):
    text: str
    tokens: int
    max_tokens: int
    included: list[Any]
    left_out: int
    project: NotRequired[str | None]  # the project briefed on (with shared memories); null: shared only
    all_projects: NotRequired[bool]


@OPEN
class Superseded(TypedDict):
    superseded: Note
    by: Note
