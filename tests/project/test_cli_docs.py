"""Every CLI command, sub-commands included, has help text and is documented: docs/cli.md
holds the reference generated from the CLI itself (tests/cli_reference.py), and it must be
current."""

from __future__ import annotations

from cli_reference import DOC, MARKER, current_doc, root_command, walk, written


def test_every_cli_command_has_help_text():
    commands = list(walk(root_command()))
    assert len(commands) > 30  # the walk reached the sub-apps too
    assert ("service", "install") in dict(commands)
    missing = [" ".join(path) for path, cmd in commands if not (cmd.help or "").strip()]
    assert missing == [], f"commands without help text: {missing}"


def test_every_cli_command_appears_in_the_command_reference():
    doc = current_doc()
    assert MARKER in doc, f"{DOC} lost its generated part"
    for path, _cmd in walk(root_command()):
        assert f"### `mnemovault {' '.join(path)}`" in doc, f"mnemovault {' '.join(path)} is not in docs/cli.md"


def test_the_command_reference_is_current():
    assert current_doc() == written(current_doc()), "run: python tests/cli_reference.py --write"


def test_every_cli_option_and_argument_has_help_text():
    missing = []
    for path, cmd in walk(root_command()):
        for param in getattr(cmd, "params", []):
            if param.name == "help" or getattr(param, "hidden", False):
                continue
            if not (getattr(param, "help", None) or "").strip():
                missing.append(f"mnemovault {' '.join(path)} {param.opts[0] if param.opts else param.name}")
    assert missing == [], f"options and arguments without help text: {missing}"


def test_every_help_text_is_whole_paragraphs_with_a_short_first_one():
    """Rich keeps a docstring's line breaks, so a wrapped docstring printed as ragged half-lines;
    the first paragraph is the one-line summary in `mnemovault --help`'s list."""
    ragged, long_first = [], []
    for path, cmd in walk(root_command()):
        paragraphs = (cmd.help or "").split("\n\n")
        if any("\n" in p for p in paragraphs):
            ragged.append(" ".join(path))
        if len(paragraphs[0]) > 140:
            long_first.append(" ".join(path))
    assert ragged == [], f"help with line breaks inside a paragraph: {ragged}"
    assert long_first == [], f"a first paragraph too long for the command list (split it): {long_first}"
