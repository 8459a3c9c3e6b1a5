"""The CLI as people expect it (issue 14 item 4): --version and help on every option."""

from __future__ import annotations

import argparse
import io
from importlib.metadata import version

import pytest

from relaybot.app.progress import progress_bar
from relaybot.cli import build_parser


def _parsers(parser: argparse.ArgumentParser, path: str = "relaybot"
             ) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found += _parsers(child, f"{path} {name}")
    return found


def test_every_option_and_argument_has_help() -> None:
    missing = []
    for path, parser in _parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                missing += [f"{path} {c.dest}" for c in action._choices_actions if not c.help]
            elif not action.help:
                missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


def test_the_commands_issue_14_adds_parse() -> None:
    parser = build_parser()
    args = parser.parse_args(["game", "list", "--active", "--event", "Club 2026"])
    assert args.active and args.event == "Club 2026"
    assert parser.parse_args(["member", "list"]).func.__name__ == "cmd_member_list"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"relaybot {version('relaybot')}"


def test_progress_bar_draws_on_a_terminal_and_stays_silent_otherwise() -> None:
    shown = io.StringIO()
    with progress_bar("importing", stream=shown, force=True) as advance:
        for done in range(1, 4):
            advance(done, 3)
    assert "importing" in shown.getvalue() and "3/3" in shown.getvalue()
    silent = io.StringIO()  # not a terminal: a pipe, a cron job, a test
    with progress_bar("importing", stream=silent) as advance:
        advance(1, 1)
    assert silent.getvalue() == ""
