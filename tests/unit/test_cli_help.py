"""Help in plain words (issue 28 item 4): no internal rule id in any help text, every TD
command in ``relaybot td --help``, ``--now`` on every command that changes games or
members and ``--json`` on every list and show command (INTERFACE.md)."""

from __future__ import annotations

import argparse
import json
import re
from datetime import UTC, date, datetime

import pytest

from relaybot.cli import build_parser
from relaybot.cli.common import CliError, now_of, print_json
from relaybot.pipeline.td import COMMANDS

RULE_ID = re.compile(r"\b[JRTDG]\d{1,2}\b|\bseed \d{3}\b|\brule \d+\b")


def _parsers(parser: argparse.ArgumentParser, path: str = "relaybot"
             ) -> dict[str, argparse.ArgumentParser]:
    found = {path: parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found.update(_parsers(child, f"{path} {name}"))
    return found


def test_no_help_text_cites_an_internal_rule_id() -> None:
    cited = []
    for path, parser in _parsers(build_parser()).items():
        text = parser.format_help()
        cited += [f"{path}: {m.group(0)}" for m in RULE_ID.finditer(text)]
    assert cited == []


def test_td_help_lists_every_command_in_both_languages() -> None:
    shown = _parsers(build_parser())["relaybot td"].format_help()
    for command in set(COMMANDS.values()):
        assert command.usage in shown and command.usage_ja in shown
    # an argparse usage error does not print the whole list
    assert "forfeit <game>" not in _parsers(build_parser())["relaybot td"].format_usage()


@pytest.mark.parametrize("command", ["td", "game new", "event new", "member add",
                                     "member set", "member import", "run", "digest send"])
def test_every_command_that_changes_games_or_members_takes_now(command: str) -> None:
    parser = _parsers(build_parser())[f"relaybot {command}"]
    assert any("--now" in a.option_strings for a in parser._actions)


@pytest.mark.parametrize("command", ["game list", "game show", "member list", "member show",
                                     "event list", "event show"])
def test_every_list_and_show_command_takes_json(command: str) -> None:
    parser = _parsers(build_parser())[f"relaybot {command}"]
    assert any("--json" in a.option_strings for a in parser._actions)


def test_now_of_reads_iso_8601_and_refuses_the_rest() -> None:
    assert now_of(argparse.Namespace(now="2026-11-22T09:00:00+09:00")) == datetime(
        2026, 11, 22, 0, 0, tzinfo=UTC)
    assert now_of(argparse.Namespace(now="2026-11-22T09:00")).tzinfo is UTC
    assert now_of(argparse.Namespace(now=None)).tzinfo is not None
    with pytest.raises(CliError, match="--now"):
        now_of(argparse.Namespace(now="next monday"))


def test_json_dates_are_iso_8601_and_text_stays_readable(
        capsys: pytest.CaptureFixture[str]) -> None:
    print_json({"name": "山田, 太郎", "start": date(2026, 11, 1),
                "at": datetime(2026, 11, 1, 9, 30, tzinfo=UTC)})
    out = capsys.readouterr().out
    assert "山田" in out and out.endswith("}\n")
    assert json.loads(out) == {"name": "山田, 太郎", "start": "2026-11-01",
                               "at": "2026-11-01T09:30:00+00:00"}
