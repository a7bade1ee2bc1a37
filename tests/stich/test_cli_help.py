"""The command line explains itself: every option described with its default, plain-text help."""
from __future__ import annotations

import argparse
import re

import pytest

from stich import arena, cli


def parsers() -> dict[str, argparse.ArgumentParser]:
    top = cli.build_parser()
    found = {"stich": top, "stich arena": arena.build_parser()}
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, parser in action.choices.items():
                if name != "arena":  # its own parser, above
                    found[f"stich {name}"] = parser
    return found


@pytest.mark.parametrize("name", sorted(parsers()))
def test_every_option_has_a_description_and_shows_its_default(name):
    parser = parsers()[name]
    text = parser.format_help()
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)):
            continue
        assert action.help, f"{name} {action.option_strings or action.dest} has no description"
        if action.option_strings and action.default not in (None, False):
            flag = action.option_strings[-1]
            options = text[text.index("options:"):]
            block = options[options.index(f"\n  {flag}") + 1:]  # this option's lines, up to the next option
            block = block[:block.index("\n  -")] if "\n  -" in block else block
            assert "default" in block, f"{name} {flag} does not show its default: {block!r}"


@pytest.mark.parametrize("name", sorted(parsers()))
def test_help_is_plain_text(name):
    text = parsers()[name].format_help()
    assert not re.search(r"``|:class:|:func:|\.\. ", text), text


def test_an_operator_key_in_the_environment_never_shows_in_help(monkeypatch):
    monkeypatch.setenv("STICH_API_KEY", "secret-key-123")
    assert "secret-key-123" not in parsers()["stich import"].format_help()
