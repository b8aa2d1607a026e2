"""The typed edge: the argument models of the operations (bridge/declarations/ names which
operation takes which, for `/api/rpc`, the HTTP routes and the MCP tools).

Strict types (a string is never split into a list, "no" is never a boolean, null is never a
default), unknown fields refused, every size bounded by vault_sync/limits.py. The MCP tools
use the same field types, the CLI validates its calls with the rpc models (bridge/operations.py).
Errors name the field and never echo the input (at most a short prefix of a number).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, model_validator

from vault_sync import limits as L
from vault_sync.errors import InvalidInput

# -- field types (shared with the MCP tools, bridge/mcp_memory_tools.py and mcp_vault_tools.py) --
Flag = Annotated[bool, Strict()]
Ref = Annotated[
    str,
    Strict(),
    Field(
        min_length=1,
        max_length=L.MAX_REF_CHARS,
        description="A memory id, or a note's path inside the vault (e.g. 'STM/Some note.md').",
    ),
]
Refs = Annotated[list[Ref], Strict(), Field(min_length=1, max_length=L.MAX_REFS)]
# observe reports a bad ref (empty, unknown, too long) per ref and still runs the others:
# its items are only typed here, the engine bounds each one before resolving it
LooseRefs = Annotated[list[Annotated[str, Strict()]], Strict(), Field(min_length=1, max_length=L.MAX_REFS)]
Tag = Annotated[str, Strict(), Field(max_length=L.MAX_TAG_CHARS)]
Tags = Annotated[list[Tag], Strict(), Field(max_length=L.MAX_TAGS)]
Text = Annotated[str, Strict(), Field(max_length=L.MAX_TEXT_CHARS)]
Title = Annotated[str, Strict(), Field(min_length=1, max_length=L.MAX_TITLE_CHARS)]
Query = Annotated[str, Strict(), Field(max_length=L.MAX_QUERY_CHARS)]
# a project's name (docs/projects.md); "" or null: shared memories only
Project = Annotated[str, Strict(), Field(max_length=100)]
RelationType = Annotated[str, Strict(), Field(min_length=1, max_length=L.MAX_RELATION_CHARS)]
Strength = Annotated[float, Field(ge=0.0, le=2.0, allow_inf_nan=False)]
Limit = Annotated[int, Strict(), Field(ge=1, le=L.MAX_LIMIT)]
SearchLimit = Annotated[int, Strict(), Field(ge=1, le=L.MAX_SEARCH_LIMIT)]
Offset = Annotated[int, Strict(), Field(ge=0, le=10_000_000)]
Threshold = Annotated[float, Field(ge=0.5, le=0.99, allow_inf_nan=False)]
Scope = Literal["all", "stm", "ltm", "memories", "notes", "archive"]
Status = Annotated[str, Strict(), Field(max_length=40)]
Conversation = Annotated[str, Strict(), Field(min_length=1, max_length=L.MAX_TITLE_CHARS)]
Reason = Annotated[str, Strict(), Field(min_length=1, max_length=L.MAX_TITLE_CHARS)]
SaidAt = Annotated[str, Strict(), Field(min_length=1, max_length=40)]
Days = Annotated[float, Field(gt=0, le=365_000, allow_inf_nan=False)]
When = Annotated[
    str,
    Strict(),
    Field(
        min_length=1,
        max_length=40,
        description="An ISO date/time (2026-05-01) or a duration back from now (7d, 12h, 2w).",
    ),
]


# a vault-relative Markdown path as the editor names it: the engine checks its form (no '..', not
# absolute, ends .md: vault_sync/editor_hold.check_path) with the same message on every front end
NotePath = Annotated[str, Strict(), Field(min_length=1, max_length=L.MAX_REF_CHARS)]


class Args(BaseModel):
    # built on first use: the daemon answers its first save before most models are needed
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


# -- /api/rpc operations: fields are the MemoryService method's keyword arguments --
class SaveArgs(Args):
    text: Text
    tags: Tags | None = None
    title: Annotated[Title | None, Field(description="Title (and file name); else the first words.")] = None
    strength: Annotated[Strength, Field(description="Importance 0.0-2.0 (1 = normal).")] = 1.0
    supersedes: Refs | None = None
    project: Project | None = None
    across_projects: Flag = False


class BriefArgs(Args):
    topic: Annotated[Query | None, Field(description="What the conversation is about (optional).")] = None
    max_tokens: Annotated[
        int, Strict(), Field(ge=40, le=100_000, description="Budget, 4 characters a token (40-100000).")
    ] = 800
    project: Project | None = None
    all_projects: Flag = False


class SupersedeArgs(Args):
    old: Annotated[Ref, Field(description="The memory that no longer holds (id or path).")]
    by: Annotated[Ref, Field(description="The memory that replaces it (id or path).")]
    across_projects: Annotated[
        Flag, Field(description="Allow the two to be of different projects (refused otherwise).")
    ] = False


class TouchArgs(Args):
    ref: Annotated[Ref, Field(description="The memory's id or path.")]
    boost: Annotated[Flag, Field(description="Also raise strength by 0.1.")] = False


class ObserveArgs(Args):
    refs: Annotated[LooseRefs, Field(description="The memories used together: ids or paths.")]
    context_tags: Annotated[Tags | None, Field(description="Tags describing the current conversation's topic.")] = None


class ReviewArgs(Args):
    limit: Annotated[Limit, Field(description="Memories in the queue to list (1-200).")] = 20
    project: Project | None = None
    all_projects: Flag = True  # the person's own queue: every project's unless narrowed


# every operation that moves notes previews unless asked to apply (dry_run: false), on every front end
class PromoteArgs(Args):
    ref: Ref
    dry_run: Flag = True


class PromoteAllArgs(Args):
    dry_run: Flag = True


class GcArgs(Args):
    dry_run: Flag = True
    delete: Annotated[Flag, Field(description="Applied: move to Obsidian's .trash instead of Archive.")] = False
    limit: Annotated[
        Limit | None,
        Field(description=f"Applied: archive at most this many (1-{L.MAX_LIMIT}), lowest score first."),
    ] = None


class RefArgs(Args):
    ref: Annotated[Ref, Field(description="The memory's id or path.")]


class DanglingArgs(Args):
    limit: Annotated[Limit, Field(description="Links per page.")] = 100
    offset: Annotated[Offset, Field(description="Skip this many links (the page's start).")] = 0


class RelateArgs(Args):
    a: Annotated[Ref, Field(description="One memory or note: id or path.")]
    b: Annotated[Ref, Field(description="The other one: id or path.")]
    rel_type: Annotated[
        RelationType, Field(description="The frontmatter key in A that holds the link (lower-case letters, digits, _).")
    ] = "related"


class GraphArgs(Args):
    include_notes: Flag = True


class SearchArgs(Args):
    query: Annotated[Query, Field(description="What to look for, in your own words.")]
    limit: Annotated[SearchLimit, Field(description="Most results (1-200).")] = 10
    scope: Annotated[Scope, Field(description="all | stm | ltm | memories | notes | archive")] = "all"
    tags: Tags | None = None
    status: Status | None = None
    since_days: Days | None = None
    blend_review: Flag = True
    since: Annotated[When | None, Field(description="Created at or after: ISO date or duration (7d).")] = None
    until: Annotated[When | None, Field(description="Created at or before: ISO date or duration.")] = None
    used_since: Annotated[When | None, Field(description="Last used at or after: ISO date or duration.")] = None
    include_superseded: Annotated[Flag, Field(description="Also show memories a newer one replaced.")] = False
    include_archived: Annotated[  # None: only a time-bounded search looks into the archive
        Flag | None,
        Field(description="Also show archived memories (default: only when since, until or used_since is given)."),
    ] = None
    project: Project | None = None
    all_projects: Flag = False


class RecentArgs(Args):
    limit: Annotated[Limit, Field(description="Memories in this page (1-200).")] = 20
    offset: Annotated[Offset, Field(description="Skip this many memories (the page's start).")] = 0
    since: Annotated[When | None, Field(description="Created at or after: ISO date or duration (7d).")] = None
    scope: Annotated[
        Literal["memories", "stm", "ltm", "archive", "all"],
        Field(description="memories (short- and long-term) | stm | ltm | archive | all"),
    ] = "memories"
    project: Project | None = None
    all_projects: Flag = False


class ClusterArgs(Args):
    threshold: Annotated[
        Threshold, Field(description="Cosine similarity two memories need to share a cluster (0.5-0.99).")
    ] = 0.83
    project: Project | None = None
    all_projects: Flag = False


class ConsolidateArgs(Args):
    ids: Annotated[Refs, Field(description="Memory ids or paths to merge (or one cluster id).")]
    apply: Annotated[Flag, Field(description="Write the merged note and archive the originals (else a preview).")] = (
        False
    )


class NoArgs(Args):
    pass


class SweepArgs(Args):
    full: Annotated[
        Flag, Field(description="Refresh every written score that moved now, not once per score_refresh_hours.")
    ] = False


class EditingArgs(Args):
    """The note open in the editor, or null: `path` is required (null is a report too)."""

    path: NotePath | None


class RefsArgs(Args):
    refs: Annotated[Refs, Field(description="Memory ids or note paths.")]


class PathArgs(Args):
    path: Annotated[Ref, Field(description="A note's path inside the vault, e.g. 'Projects/Atlas.md'.")]


class ThreadArgs(Args):
    ref: Annotated[Ref, Field(description="A memory said in a conversation: its id or path (e.g. a search hit).")]
    before: Annotated[int, Strict(), Field(ge=0, le=50, description="Turns said before it to include (0-50).")] = 5
    after: Annotated[int, Strict(), Field(ge=0, le=50, description="Turns said after it to include (0-50).")] = 5


Grade = Literal["remember", "fade"]
Stamp = Annotated[str, Strict(), Field(max_length=40)]
Number = Annotated[float, Field(ge=0, allow_inf_nan=False)]


KeyName = Annotated[str, Strict(), Field(max_length=200)]


class ReviewValues(Args):
    """The owned values a review changes, as the note held them (null: the key was absent)."""

    last_used: Stamp | None
    decay_score: Number | None
    review_priority: Number | None
    review_on: Stamp | None
    archive_on: Stamp | None
    # how the note spelled values the engine writes otherwise, and its keys' order (an undo puts
    # those bytes back)
    as_written: Annotated[dict[KeyName, Stamp], Field(max_length=6)] | None = None
    layout: Annotated[list[KeyName], Field(max_length=200)] | None = None


class ArchivedValues(ReviewValues):
    status: Status | None
    # keys archive writes over a note that held them already (one taken back from the archive
    # by hand); left out, the undo removes them
    archived_at: Stamp | None = None
    archive_reason: Annotated[str, Strict(), Field(max_length=1000)] | None = None
    archived_from: Literal["stm", "ltm"] | None = None
    merged_into: Annotated[str, Strict(), Field(max_length=1000)] | None = None
    as_written: (
        Annotated[dict[KeyName, Annotated[str, Strict(), Field(max_length=100)]], Field(max_length=10)] | None
    ) = None


class ReviewMemoryArgs(Args):
    ref: Ref
    grade: Annotated[Grade, Field(description="remember (keep it alive, never past the promote threshold) or fade.")]


class UndoReviewArgs(Args):
    ref: Ref
    prior: ReviewValues
    after: ReviewValues


class RestoreArgs(Args):
    ref: Annotated[Ref, Field(description="The archived memory's id or path.")]
    prior: ArchivedValues | None = None


class UnpinArgs(Args):
    ref: Annotated[Ref, Field(description="The memory's id or path.")]
    prior: ReviewValues | None = None  # what pin answered: unpin is then pin's exact undo


class RpcBody(Args):
    op: Annotated[str, Strict(), Field(max_length=40)]
    args: dict[str, Any] = {}


# -- HTTP endpoints (docs/bridge-api.md) --
class PromoteBody(Args):
    ref: Ref | None = None
    auto: Flag = False
    dry_run: Flag = True  # a preview unless asked to apply

    @model_validator(mode="after")
    def _one_target(self) -> PromoteBody:
        if (self.ref is None) == (not self.auto):
            raise ValueError("give the note as `ref`, or `auto: true` for every candidate (not both)")
        return self


class GcBody(Args):
    dry_run: Flag = True
    limit: Limit | None = None


class ReviewQuery(Args):
    limit: Limit = 20
    offset: Offset = 0
    project: Project | None = None  # the plugin's filter; without it, every project's


class SearchQuery(Args):
    q: Query = ""
    limit: SearchLimit = 10
    offset: Annotated[int, Strict(), Field(ge=0, le=L.MAX_SEARCH_LIMIT - 1)] = 0
    scope: Scope = "all"
    since: When | None = None
    until: When | None = None
    used_since: When | None = None
    include_superseded: Flag = False
    include_archived: Flag | None = None
    project: Project | None = None  # without it, every project's


class RelatedQuery(Args):
    path: Ref
    limit: Annotated[int, Strict(), Field(ge=1, le=100)] = 10


class CaptureBody(Args):
    text: Text
    tags: Tags | None = None


class JobBody(Args):
    kind: Literal["gc", "promote", "sync", "consolidate"]
    ids: Refs | None = None  # consolidate: the memories to merge (ids, paths, or one cluster id)


# -- validation with messages of our own --
_EXPECTED = {
    "string_type": "a string",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "list_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "literal_error": "",
    "none_required": "null",
}
_BOUND = {
    "greater_than_equal": ("ge", "at least"),
    "greater_than": ("gt", "more than"),
    "less_than_equal": ("le", "at most"),
    "less_than": ("lt", "less than"),
}


def _kind(value: Any) -> str:
    """What a client sent, without its content (a number is quoted, shortened)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = repr(value)
        return f"the number {text if len(text) <= L.QUOTE_CHARS else text[: L.QUOTE_CHARS] + '…'}"
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)} items"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _field(loc: tuple[Any, ...]) -> str:
    parts = [
        p
        if isinstance(p, str) and p.isidentifier() and len(p) <= 40
        else (f"[{p}]" if isinstance(p, int) else L.quote(str(p)))
        for p in loc
    ]
    name = ".".join(parts).replace(".[", "[")
    return f"`{name}`" if name else "the request"


def describe(err: dict[str, Any]) -> str:
    """One error of a ValidationError, in words, naming the field, never echoing the input."""
    kind, ctx, field = err["type"], err.get("ctx") or {}, _field(tuple(err.get("loc", ())))
    got = _kind(err.get("input"))
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return f"unknown field {field}"
    if kind == "missing":
        return f"{field} is required"
    if kind == "literal_error":
        return f"{field} must be one of {ctx.get('expected')} (got {got})"
    if kind in _EXPECTED:
        return f"{field} must be {_EXPECTED[kind]} (got {got})"
    if kind == "string_too_long":
        return f"{field} is too long ({got}; limit {ctx.get('max_length')})"
    if kind == "string_too_short":
        return f"{field} must not be empty"
    if kind == "too_long":
        return f"{field} has too many items ({got}; limit {ctx.get('max_length')})"
    if kind == "too_short":
        return f"{field} needs at least {ctx.get('min_length')} item(s)"
    if kind in _BOUND:
        key, words = _BOUND[kind]
        return f"{field} must be {words} {ctx.get(key)} (got {got})"
    if kind == "value_error":
        return str(ctx.get("error", "invalid value"))
    return f"{field} is not valid ({kind})"


def message(exc: ValidationError, prefix: str = "") -> str:
    errors: list[Any] = list(exc.errors(include_url=False))
    text = "; ".join(describe(e) for e in errors[:3]) + (f" (and {len(errors) - 3} more)" if len(errors) > 3 else "")
    return f"{prefix}{text}"


def parse(model: type[Args], data: Any, strings: bool = False, prefix: str = "") -> Args:
    """`data` validated against `model` (query strings: `strings=True`), or InvalidInput."""
    if not isinstance(data, dict):
        raise InvalidInput(f"{prefix}the arguments must be a JSON object")
    try:
        return model.model_validate_strings(data) if strings else model.model_validate(data)
    except ValidationError as exc:
        raise InvalidInput(message(exc, prefix)) from None


def kwargs(model: Args) -> dict[str, Any]:
    """Nested models (a review's `prior`) go to the engine as plain dicts."""
    values = {name: getattr(model, name) for name in type(model).model_fields}
    return {name: v.model_dump() if isinstance(v, BaseModel) else v for name, v in values.items()}


def checked_args(table: dict[str, type[Args]], op: Any, args: Any) -> dict[str, Any]:
    """The keyword arguments for MemoryService.<op>, validated by `table[op]`; InvalidInput otherwise."""
    if not isinstance(op, str) or op not in table:
        raise InvalidInput(f"unknown operation {L.quote(op) if isinstance(op, str) else _kind(op)}")
    return kwargs(parse(table[op], {} if args is None else args, prefix=f"{op}: "))
