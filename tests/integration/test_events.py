"""Events from the CLI, results, ratings, standings and the weekly digest, end to end
(T1, T5, R1, R2, J15, D1; G10)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import select

from relaybot.store.models import Game, Member, RatingChange
from tests.integration.relay_harness import TD, Club, Player, body_of

pytestmark = pytest.mark.integration

NAMES = [("Aoki, Ichiro", "aoki@example.jp"), ("Baba, Jiro", "baba@example.jp"),
         ("Chiba, Saburo", "chiba@example.jp"), ("Doi, Shiro", "doi@example.jp")]


def group(club: Club) -> tuple[list[Player], list[str]]:
    players = [club.member(name, address, lang="ja" if i % 2 else "en")
               for i, (name, address) in enumerate(NAMES)]
    out = club.cli("event", "new", "Preliminary A", "--kind", "group", "--players",
                   ",".join(a for _, a in NAMES), "--start", club.clock.date().isoformat())
    lines = out.stdout.splitlines()
    assert lines[0] == "Preliminary A: 12 games started".replace("Preliminary", "event Preliminary")
    ids = [line.split()[0] for line in lines[1:]]
    club.cycle()
    return players, ids


def resign_game(club: Club, gid: str, players: dict[str, Player], loser_colour: int) -> None:
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None
        white = s.get(Member, game.side0_id)
        black = s.get(Member, game.side1_id)
        assert white is not None and black is not None
        w, b = players[white.email], players[black.email]
    w.send("1. e4", to=w.game_address(gid), subject=f"[{gid}]")
    club.cycle()
    b.send("1. e4 e5", to=b.game_address(gid), subject=f"[{gid}]")
    club.cycle()
    loser = w if loser_colour == 0 else b
    loser.send("resign", to=loser.game_address(gid), subject=f"[{gid}]")
    club.cycle()


def test_t1_group_of_four_results_ratings_standings_and_digests(club: Club) -> None:
    players, ids = group(club)
    by_address = {p.address: p for p in players}
    # each pair twice, White and Black: 12 games, 6 per player, all started by mail
    assert len(ids) == 12
    starts = Counter(c.rcpt_tos[0] for c in club.sink.captured
                     if c.parsed["X-Relaybot-Kind"] == "start")
    assert starts == {a: 6 for _, a in NAMES}

    for gid, loser in zip(ids[:3], (1, 0, 1), strict=True):
        resign_game(club, gid, by_address, loser)
    reports = [c for c in club.mails_to(TD) if c.parsed["X-Relaybot-Kind"] == "td_result"]
    assert len(reports) == 3
    text = body_of(reports[0])
    # no site set: the club's name ([bot] name), never another club's
    assert '[Event "Preliminary A"]' in text and '[Site "relaybot"]' in text
    assert "'s score: 1 win, 0 draws, 0 losses." in text  # J15: the reporter's score
    with club.store.session() as s:
        changes = s.scalars(select(RatingChange)).all()
        assert len(changes) == 6  # two per rated game, never twice
        assert all(c.before == 1200 for c in changes[:2])
    member = club.cli("member", "show", "aoki@example.jp").stdout
    assert "rating (1" in member and "grade points" in member
    show = club.cli("event", "show", "Preliminary A").stdout
    assert "1.0" in show or "1 " in show

    # D1: one digest per member per ISO week, also across a stop over the week boundary
    monday = club.clock - timedelta(days=club.clock.weekday())
    for when in (monday + timedelta(days=2), monday + timedelta(days=2, hours=5),
                 monday + timedelta(days=5)):
        club.cli("run", "--once", "--now", when.isoformat())
    # stopped from Saturday to the next Wednesday, then restarted twice
    for when in (monday + timedelta(days=9), monday + timedelta(days=9, hours=1)):
        club.cli("run", "--once", "--now", when.isoformat())
    import re

    digests = Counter((c.rcpt_tos[0], re.findall(r"\d{4}-W\d\d", str(c.parsed["Subject"]))[0])
                      for c in club.sink.captured if c.parsed["X-Relaybot-Kind"] == "digest")
    assert set(digests.values()) == {1}  # never two for one member and week
    week_of = {w for _, w in digests}
    for _, address in NAMES:  # the week before the stop and the week after it, each once
        assert {w for a, w in digests if a == address} == week_of
    assert len(week_of) >= 2
    one = next(c for c in club.mails_to("aoki@example.jp")
               if c.parsed["X-Relaybot-Kind"] == "digest")
    assert "Preliminary A" in body_of(one) and "against" in body_of(one)


def test_digest_send_and_announce_from_the_cli(club: Club) -> None:
    club.member("Aoki, Ichiro", "aoki@example.jp")
    club.member("Baba, Jiro", "baba@example.jp", lang="ja")
    club.cli("member", "set", "baba@example.jp", "--digest", "off")
    club.cli("announce", "Club", "meeting", "on", "Sunday")
    out = club.cli("digest", "send").stdout
    assert "digests queued: 1" in out
    digest = [c for c in club.mails_to("aoki@example.jp")
              if c.parsed["X-Relaybot-Kind"] == "digest"]
    assert len(digest) == 1 and "Club meeting on Sunday" in body_of(digest[0])
    assert not club.mails_to("baba@example.jp")
    out = club.cli("digest", "send").stdout
    assert "digests queued: 0" in out  # never two in one week


def test_event_mistakes_get_one_line(club: Club) -> None:
    club.member("Aoki, Ichiro", "aoki@example.jp")
    club.member("Baba, Jiro", "baba@example.jp")
    bad = club.cli("event", "new", "G", "--kind", "group", "--players",
                   "aoki@example.jp,baba@example.jp", check=False)
    assert bad.returncode == 2 and "4 players" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_two_members_of_one_name_stand_apart_in_the_standings(club: Club) -> None:
    """Two members called Sato Ichiro in one group: the standings, the crosstable, the
    JSON and the digest keep them apart by member number instead of refusing the event
    ("listed twice"), and each one's result is their own."""
    twins = [("Sato, Ichiro", "sato1@example.jp"), ("Sato, Ichiro", "sato2@example.jp"),
             ("Chiba, Saburo", "chiba@example.jp"), ("Doi, Shiro", "doi@example.jp")]
    players = {address: club.member(name, address) for name, address in twins}
    club.cli("event", "new", "Twins", "--kind", "group", "--players",
             ",".join(a for _, a in twins), "--start", club.clock.date().isoformat())
    club.cycle()
    with club.store.session() as s:
        ids = {m.email: m.id for m in s.scalars(select(Member))}
        game = s.scalars(select(Game).where(
            Game.event == "Twins", Game.side0_id == ids["sato2@example.jp"],
            Game.side1_id == ids["doi@example.jp"])).first()
        assert game is not None
        gid = game.id
    resign_game(club, gid, players, loser_colour=1)  # the second Sato wins

    import json

    shown = json.loads(club.cli("event", "show", "Twins", "--json").stdout)
    rows = {row["email"]: row for row in shown["standings"]}
    assert set(rows) == {a for _, a in twins}
    first, second = rows["sato1@example.jp"], rows["sato2@example.jp"]
    assert first["name"] != second["name"]
    assert f"(#{ids['sato2@example.jp']})" in second["name"]
    assert (first["wins"], second["wins"]) == (0, 1)
    club.member("Doi, Shiro", "doi2@example.jp")  # a namesake who is not in the event
    text = club.cli("event", "show", "Twins").stdout
    assert f"Ichiro Sato (#{ids['sato1@example.jp']})" in text
    assert f"Ichiro Sato (#{ids['sato2@example.jp']})" in text
    # the game lines below the table name the players as the table does
    assert f"{gid}  Ichiro Sato (#{ids['sato2@example.jp']}) - Shiro Doi  " in text
    # the web page numbers both by their seats
    from relaybot.web.data import event_page

    with club.store.session() as s:
        from relaybot.store.models import Event

        event = s.scalar(select(Event).where(Event.name == "Twins"))
        assert event is not None
        page = event_page(s, event, "en", club.clock)
    assert sorted(row["id"] for row in page["rows"]) == sorted(ids[a] for a in rows)
    assert all(row["no"] for row in page["rows"])
