"""Issue 26 item 4: no internal rule id (J1-J21, R1-R4, T1-T5, D1-D2, "seed 002 rule 10",
"（規則J5）") in anything a member or an operator reads: the mail and web templates and
every ``--help`` text of the command line. The ids stay in the code, the tests and the
docs; a reader gets the rule in plain words or the seed's own number in its own words
(順位戦ルール16, "the league's rule 16")."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from relaybot.cli import build_parser
from relaybot.mail.render import templates_dir

INTERNAL_ID = re.compile(
    r"(?<![A-Za-z0-9_.+\[-])(?:J(?:1\d|2[01]|[1-9])|R[1-4]|T[1-5]|D[12])(?![A-Za-z0-9_\]])"
    r"|\bseed \d{3}\b|規則J\d|\brule J\d")
JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)


def internal_ids(text: str) -> list[str]:
    """The internal rule ids in ``text`` (a reader's text: a mail, a page, a help)."""
    return [m.group(0) for m in INTERNAL_ID.finditer(text)]


def test_the_finder_finds_what_it_should() -> None:
    assert internal_ids("（規則J5）")
    assert internal_ids("lost (J9)") == ["J9"]
    assert internal_ids("seed 002 rule 10") == ["seed 002"]
    assert internal_ids("R4, T5 and D2") == ["R4", "T5", "D2"]
    # a go point, a game id or a setting is no rule id
    assert internal_ids("47 Q16, relay+j12abc@club.example, [j5k2], 順位戦ルール16") == []


def _templates() -> Iterator[Path]:
    yield from sorted(templates_dir().rglob("*.j2"))


@pytest.mark.parametrize("path", list(_templates()), ids=lambda p: p.name)
def test_no_internal_id_in_a_template(path: Path) -> None:
    text = JINJA_COMMENT.sub("", path.read_text(encoding="utf-8"))
    assert internal_ids(text) == [], path


def _parsers(parser: argparse.ArgumentParser, name: str = "relaybot",
             ) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from _parsers(child, f"{name} {sub}")


def test_no_internal_id_in_any_help() -> None:
    found = {name: internal_ids(parser.format_help()) for name, parser in _parsers(build_parser())}
    assert {name: ids for name, ids in found.items() if ids} == {}
