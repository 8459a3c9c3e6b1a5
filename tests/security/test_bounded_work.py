"""Bounded work per mail (issue 12 item 10): conditional lines deduplicated and capped,
sections capped, records far longer than the game refused before they are read. A mail
over a cap is refused whole, with one reply in the member's language.

Each test's docstring starts with "attack -> outcome" (docs/security.md is made from them).
"""

from __future__ import annotations

import itertools

import pytest
from sqlalchemy import select

from relaybot.core.bounds import MAX_CONDITIONALS, MAX_SECTIONS
from relaybot.store.models import Game, Move
from tests.integration.relay_harness import Club, body_of

pytestmark = pytest.mark.integration

SATO = "sato@example.jp"
BROWN = "brown@example.org"
PREDICTED = ["a6", "a5", "b6", "b5", "c6", "c5", "d6", "d5", "e6", "e5", "f6", "f5", "g6",
             "g5", "h6", "h5", "Nf6", "Nc6", "Na6", "Nh6"]
ANSWERS = ["Nf3", "Nc3", "d4", "d3", "c4", "c3", "a3", "a4", "b3", "b4", "g3", "g4", "h3",
           "h4", "Na3", "Nh3", "Be2", "Bd3", "Bc4", "Bb5"]


def megabyte_of(lines: list[str]) -> str:
    """``lines`` repeated until the text is 1 MB."""
    out: list[str] = []
    size = 0
    for line in itertools.cycle(lines):
        if size >= 1_000_000:
            return "\n".join(out)
        out.append(line)
        size += len(line) + 1
    raise AssertionError("unreachable")


def game_state(club: Club, gid: str) -> tuple[str, list[list[str]], int]:
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None
        moves = len(s.scalars(select(Move).where(Move.game_id == gid)).all())
        return game.plies, list(game.proposals or []), moves


def test_a_megabyte_of_conditional_lines_is_refused_whole(club: Club) -> None:
    """1 MB of conditional lines -> nothing applied, one reply in the member's language

    White (writing in Japanese) sends her move and a megabyte of different `if ... then`
    proposals, through her own reply address. The mail is refused whole before the
    proposals are checked on a board: no move, no proposal stored, nothing relayed,
    and one reply, in Japanese, naming the cap."""
    sato = club.member("佐藤 花子", SATO, lang="ja")
    brown = club.member("Brown, Tom", BROWN)
    gid = club.game(sato, brown)
    lines = [f"if 1... {p} then 2. {a}" for p in PREDICTED for a in ANSWERS]
    assert len(set(lines)) > MAX_CONDITIONALS
    before = len(club.sink.captured)
    sato.send("1. e4\n" + megabyte_of(lines), quote=False)
    report = club.cycle()
    assert report.poll.outcomes == {"too_many_conditionals": 1}
    assert game_state(club, gid) == ("", [], 0)
    sent = club.sink.captured[before:]
    assert [c.rcpt_tos for c in sent] == [[SATO]]  # one reply, to the sender only
    text = body_of(sent[0])
    assert f"{MAX_CONDITIONALS} 件" in text and "何も適用していません" in text


def test_one_conditional_line_repeated_counts_once(club: Club) -> None:
    """one conditional line repeated for 1 MB -> read once: move and proposal applied"""
    sato = club.member("Sato, Hanako", SATO)
    brown = club.member("Brown, Tom", BROWN)
    gid = club.game(sato, brown)
    sato.send("1. e4\n" + megabyte_of(["if 1... e5 then 2. Nf3"]), quote=False)
    report = club.cycle()
    assert report.poll.outcomes == {"move": 1}
    plies, proposals, moves = game_state(club, gid)
    assert plies == "e2e4" and moves == 1
    assert proposals == [["e7e5", "g1f3"]]


def test_a_record_far_longer_than_the_game_is_refused_before_it_is_read(club: Club) -> None:
    """a record of 2,000 legal plies in a new game -> refused unread, one reply

    Nothing is applied; the reply names the lengths of the record and of the game in
    moves as chess players count them (2,000 plies are 1,000 moves)."""
    sato = club.member("Sato, Hanako", SATO)
    brown = club.member("Brown, Tom", BROWN)
    gid = club.game(sato, brown)
    shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"]
    record = " ".join((f"{i // 2 + 1}. " if i % 2 == 0 else "") + shuffle[i % 4]
                      for i in range(2000))
    before = len(club.sink.captured)
    sato.send(record, quote=False)
    report = club.cycle()
    assert report.poll.outcomes == {"too_long": 1}
    assert game_state(club, gid) == ("", [], 0)
    sent = club.sink.captured[before:]
    assert [c.rcpt_tos for c in sent] == [[SATO]]
    assert "1000 moves against 0" in body_of(sent[0])  # chess counts a move of each side


def test_more_sections_than_the_cap_are_refused_whole(club: Club) -> None:
    """moves for more games than the section cap in one mail -> nothing applied, one reply"""
    sato = club.member("Sato, Hanako", SATO)
    brown = club.member("Brown, Tom", BROWN)
    gids = [club.game(sato, brown) for _ in range(MAX_SECTIONS + 1)]
    before = len(club.sink.captured)
    sections = "\n".join(f"[{gid}] 1. e4" for gid in gids)
    sato.send(sections, quote=False)
    report = club.cycle()
    assert report.poll.outcomes == {"too_many_sections": 1}
    assert all(game_state(club, gid) == ("", [], 0) for gid in gids)
    sent = club.sink.captured[before:]
    assert [c.rcpt_tos for c in sent] == [[SATO]]
    assert f"at most {MAX_SECTIONS}" in body_of(sent[0])
