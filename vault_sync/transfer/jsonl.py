"""Our own export (export.py) read back: each note rebuilt from its verbatim frontmatter
block and text, into the folder of its kind under its old name when that is free. Our ids
travel with the notes, so a note whose id is already in the vault is skipped (idempotent)."""

from __future__ import annotations

from pathlib import Path

from ..fmblock import MAX_YAML_CHARS, YamlProblem, load_yaml
from ..note import OWNED_KEYS
from .core import BadSource, Item
from .readers import bounded_id, json_lines, text_list

SOURCE = "jsonl"


def parse(path: Path) -> list[Item]:
    if not path.is_file():
        raise BadSource([f"{path}: no such file"])
    items: list[Item] = []
    problems: list[str] = []
    for n, obj in json_lines(path):
        where = f"line {n}"
        if isinstance(obj, str):
            problems.append(f"{where}: {obj}")
            continue
        try:
            text, fm_text, rel = obj.get("text"), obj.get("frontmatter", ""), obj.get("path")
            if not isinstance(text, str):
                raise ValueError("no `text`")
            if not isinstance(fm_text, str) or not isinstance(rel, str) or not rel.endswith(".md"):
                raise ValueError("no `frontmatter` text or `path` of a .md note")
            if len(fm_text) > MAX_YAML_CHARS:  # a note whose frontmatter the vault would not read
                raise ValueError(f"`frontmatter` is too large ({len(fm_text):,} characters, limit {MAX_YAML_CHARS:,})")
            bounded_id(rel, "path")
            try:
                fm = load_yaml(fm_text) or {} if fm_text.strip() else {}
            except (YamlProblem, ValueError) as exc:
                raise ValueError(f"frontmatter: {exc}") from None
            if not isinstance(fm, dict) or not isinstance(fm.get("id"), str):
                raise ValueError("the frontmatter has no memory `id`")
            raw = ("---\n" + fm_text + "---\n" + text).encode("utf-8") if fm_text else text.encode("utf-8")
            stem = rel.rsplit("/", 1)[-1][:-3]
            items.append(
                Item(
                    where=where,
                    source_id=fm["id"],
                    text=text,
                    title=obj.get("title") if isinstance(obj.get("title"), str) else None,
                    tags=text_list(fm.get("tags"), "tags"),
                    raw=raw,
                    kind=obj.get("kind"),
                    name=stem,
                    folder=rel.rsplit("/", 1)[0] if "/" in rel else None,
                    extra={k: v for k, v in fm.items() if k not in OWNED_KEYS},  # seen by the secret gate
                )
            )
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
    if problems:
        raise BadSource(problems)
    return items
