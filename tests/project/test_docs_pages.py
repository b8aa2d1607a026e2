"""The README and docs/ hold together: relative links and anchors resolve, the repository paths
they name exist, no page cites an issue number or a file outside the repository, every
benchmark table says when and how it was measured, and every setting is documented."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
REPO_PATH = re.compile(r"(?<![\w./-])((?:vault_sync|bridge|tests|docs|obsidian-plugin|sample-vault|\.ci)/[\w./-]*)")
# named by the docs but never in a checkout: package data that only the built wheel holds,
# and the plugin's build output (ignored by git)
NOT_IN_A_CHECKOUT = {"bridge/data/", "obsidian-plugin/main.js"}


def prose(text: str) -> str:
    """The text without fenced code blocks and inline code spans (examples, not links)."""
    text = re.sub(r"^( *)(```|~~~).*?^\1\2[ \t]*$", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {slug(h) for h in re.findall(r"^#{1,6}\s+(.+?)\s*$", text, re.M)}


def test_relative_links_and_anchors_resolve():
    broken = []
    for page in PAGES:
        for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def test_repository_paths_the_docs_name_exist():
    missing = []
    for page in PAGES:
        for path in set(REPO_PATH.findall(page.read_text(encoding="utf-8"))):
            path = path.rstrip(".")
            if path in NOT_IN_A_CHECKOUT:
                continue
            if not (ROOT / path).exists():
                missing.append(f"{page.name}: {path}")
    assert missing == []


def test_tests_the_docs_name_exist():
    missing = []
    for page in PAGES:
        for path, name in set(re.findall(r"(tests/[\w/]+\.py)::(\w+)", page.read_text(encoding="utf-8"))):
            source = ROOT / path
            if not source.exists() or not re.search(rf"^def {name}\(", source.read_text(encoding="utf-8"), re.M):
                missing.append(f"{page.name}: {path}::{name}")
    assert missing == []


def test_no_page_cites_an_issue_or_a_file_outside_the_repository():
    cited = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for pattern in (r"\bissues? #?\d+", r"(?<![\w/])#\d+\b", r"DESIGN\.md", r"\bseeds/", r"\bSTYLE\.md"):
            cited += [f"{page.name}: {m.group(0)}" for m in re.finditer(pattern, text, re.I)]
    assert cited == []


def test_every_benchmark_table_says_when_and_how_it_was_measured():
    lines = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").splitlines()
    starts = [
        i
        for i, line in enumerate(lines)
        if line.startswith("| ") and i + 1 < len(lines) and lines[i + 1].startswith("| ---")
    ]
    assert len(starts) >= 4
    for i in starts:
        before = "\n".join(lines[max(0, i - 20) : i])
        assert re.search(r"\b20\d\d-\d\d-\d\d\b", before), f"the table at line {i + 1} has no date before it"
        assert re.search(r"`(mnemovault bench|python|tests/)[^`]*`", before), (
            f"the table at line {i + 1} does not say the command that measured it"
        )


def test_every_setting_is_documented():
    from vault_sync.settings import FIELDS

    doc = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    missing = [name for name in FIELDS if name != "vault" and f"`{name}`" not in doc]
    assert missing == []


def test_the_readme_is_a_front_door():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert 250 <= len(lines) <= 350
    listed = {m.group(1) for line in lines if (m := re.match(r"\| \[docs/([\w-]+\.md)\]", line))}
    assert listed == {p.name for p in (ROOT / "docs").glob("*.md")}, "the README's table of docs/ pages"
