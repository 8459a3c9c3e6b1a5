"""Issue 30, "Must show": a simulated club year of seed 000's books through the real
command line (``relaybot`` in a subprocess) and the real Dovecot, in fast forward."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from tests.integration.relay_harness import TD, Club, Player, body_of

pytestmark = pytest.mark.integration

A, B, C, D = "a@example.jp", "b@example.jp", "c@example.jp", "d@example.jp"
E, F, G, H = "e@example.jp", "f@example.jp", "g@example.jp", "h@example.jp"
NAMES = {A: "Hayakawa, Satoru", B: "Hayakawa, Yoko", C: "Sakamoto, Ken", D: "Onoda, Hiro",
         E: "Hashizume, Shuji", F: "Otake, Sakae", G: "Terada, Shoji", H: "Mori, Hiro"}


def at(day: str, hour: int = 0) -> datetime:
    return datetime.fromisoformat(day).replace(hour=hour, tzinfo=UTC)


def now(day: str) -> str:
    return f"{day}T09:00:00+09:00"


def games_of(club: Club, event: str) -> list[dict[str, str]]:
    return list(json.loads(club.cli("game", "list", "--event", event, "--json").stdout))


def decide(club: Club, game: dict[str, str], winner: str | None, day: str) -> None:
    result = ("1/2-1/2" if winner is None else "1-0" if game["white"] == winner else "0-1")
    club.cli("td", "adjudicate", game["id"], result, "--now", now(day))


@pytest.mark.slow
def test_simulated_club_year(club: Club) -> None:
    """The year from April 2025 to March 2026, worked out as seed 000 gives it.

    Members: A regular (paid to 2026-03-31), B family of A (A's expiry), C junior born
    2010, D, E, F, G regular to 2026-03-31, H regular to 2025-06-30: the digest warns H on
    16 June (a month ahead), says on 7 July it ran out, sends none from 14 July, when the
    TD is told once (会費切れとなった場合は通知なくニュースレターの発送を停止).

    Pawns (1 pawn=100円): A deposits 1,000 yen = 10 pawns and pays Prelim 1's 600 yen
    entry fee with 6 (4 left); B, C (junior: 300 yen, half) and E pay in yen. Prelim 1
    (A, B, C, E): A wins all six games (one of them by mail, B resigning) and the rest
    are drawn: A sole winner, 6 pawns (単独優勝者には6 pawn). Prelim 2 (D, F, G, H): F and
    G beat D and H and draw their two games, D-H drawn: F and G tied, 3 pawns each.
    A buys a book from B for 2 pawns (会内代価). On 2 March 2026 A renews with 5,000 yen:
    3,000 the fee, 2,000 yen = 20 pawns deposited (the seed's own example), valid to
    2027-03-31. A's ledger: +10 -6 +6 -2 +20 = 28 pawns.

    The chess ladder A, B, C, D: D challenges C and wins (A, B, D, C), challenges B and
    wins (A, D, B, C), challenges A and loses (unchanged). The tutorial (E tutoring H) is
    ended by the tutor and counts for nothing. Games finished in the year: D 6 + 3 = 9,
    A, B, C 6 + 1 = 7, E, F, G, H 6: D wins the most-games award of 2025.
    """
    club.clock = at("2025-04-01")
    day0 = "2025-04-01"
    players = {}
    for address, name in NAMES.items():
        club.cli("member", "add", "--name", name, "--email", address, "--now", now(day0))
        players[address] = Player(name, address, club)
        club.players[address] = players[address]
    for address in (A, D, E, F, G):
        club.cli("member", "set", address, "--kind", "regular", "--paid-until", "2026-03-31")
    club.cli("member", "set", B, "--kind", "family", "--family-of", A)
    club.cli("member", "set", C, "--kind", "junior", "--born", "2010")
    club.cli("member", "set", H, "--kind", "regular", "--paid-until", "2025-06-30")
    club.cli("member", "pawns", A, "--add-yen", "1000", "--reason", "deposit",
             "--now", now(day0))
    club.cli("club", "ladder", "--set", f"{A},{B},{C},{D}")

    day1 = "2025-04-07"
    out = club.cli("event", "new", "Prelim 1", "--kind", "group", "--fee", "600",
                   "--players", f"{A},{B},{C},{E}", "--start", day1, "--now", now(day1)).stdout
    assert f"not paid yet: {B} (600 yen), {C} (300 yen), {E} (600 yen)" in out
    for who in (B, C, E):
        club.cli("club", "paid", "Prelim 1", who, "--now", now(day1))
    assert "NOT PAID" not in club.cli("club", "fees", "Prelim 1").stdout
    club.cli("event", "new", "Prelim 2", "--kind", "group", "--players", f"{D},{F},{G},{H}",
             "--start", day1, "--now", now(day1))
    tutorial = club.cli("game", "new", "--white", E, "--black", H, "--tutorial",
                        "--now", now(day1)).stdout.split()[0]
    club.clock = at(day1, 1)
    club.cycle()

    # one game of Prelim 1 by mail through Dovecot: A (White) against B, who resigns
    prelim1 = games_of(club, "Prelim 1")
    by_mail = next(g for g in prelim1 if g["white"] == A and g["black"] == B)
    gid = by_mail["id"]
    for who, text in ((A, "1. e4"), (B, "1. e4 e5"), (A, "1. e4 e5 2. Qh5"), (B, "resign")):
        players[who].send(text, to=players[who].game_address(gid), subject=f"[{gid}]")
        club.cycle()
    finished = json.loads(club.cli("game", "show", gid, "--json").stdout)
    assert finished["result"] == "1-0"

    day2 = "2025-05-01"
    for g in prelim1:
        if g["id"] != gid:
            decide(club, g, A if A in (g["white"], g["black"]) else None, day2)
    for g in games_of(club, "Prelim 2"):
        pair = {g["white"], g["black"]}
        winner = next((w for w in (F, G) if w in pair and pair & {D, H}), None)
        decide(club, g, winner, day2)
    for n, (challenger, higher, winner) in enumerate(
            ((D, C, D), (D, B, D), (D, A, A)), start=1):
        club.cli("event", "new", f"Ladder {n}", "--kind", "ladder", "--players",
                 f"{challenger},{higher}", "--now", now(day2))
        (game,) = games_of(club, f"Ladder {n}")
        decide(club, game, winner, day2)
        club.cli("club", "settle", "--now", now(day2))
    club.cli("club", "tutorial-end", tutorial, "--now", now(day2))
    ladder = club.cli("club", "ladder").stdout
    assert [line.split("<")[1].rstrip(">") for line in ladder.splitlines()[1:]] == [A, D, B, C]

    club.clock = at("2025-05-12", 1)  # a Monday: the digest, and the books settle
    club.cycle()
    digest_a = [c for c in club.mails_to(A) if c.parsed["X-Relaybot-Kind"] == "digest"][-1]
    text = body_of(digest_a)
    assert "Tournament prize, Prelim 1: Satoru Hayakawa, 6 pawns" in text
    assert "The chess ladder, top first:" in text
    pawns = club.cli("member", "pawns", A).stdout
    assert "balance: 4 pawns" not in pawns and "balance: 10 pawns" in pawns
    for who in (F, G):
        assert "balance: 3 pawns" in club.cli("member", "pawns", who).stdout

    def digests_to_h() -> list[str]:
        return [body_of(c) for c in club.mails_to(H) if c.parsed["X-Relaybot-Kind"] == "digest"]

    club.clock = at("2025-06-16", 1)
    club.cycle()
    assert "Your membership runs out on 2025-06-30" in digests_to_h()[-1]
    club.clock = at("2025-07-07", 1)
    club.cycle()
    assert "Your membership ran out on 2025-06-30" in digests_to_h()[-1]
    count = len(digests_to_h())
    for day in ("2025-07-14", "2025-07-21"):
        club.clock = at(day, 1)
        club.cycle()
    assert len(digests_to_h()) == count  # lapsed: no digest
    lapsed = [c for c in club.mails_to(TD) if c.parsed["X-Relaybot-Kind"] == "td_lapsed"]
    assert len(lapsed) == 1 and H in body_of(lapsed[0])

    club.cli("member", "pawns", A, "--pay", "2", "--reason", "a book from Hayakawa Yoko",
             "--now", now("2025-08-01"))
    club.cli("member", "pawns", B, "--add", "2", "--reason", "a book sold to Hayakawa Satoru",
             "--now", now("2025-08-01"))
    out = club.cli("member", "renew", A, "--yen", "5000", "--on", "2026-03-02",
                   "--now", now("2026-03-02")).stdout
    assert "valid until 2027-03-31; 20 pawns deposited" in out
    ledger = club.cli("member", "pawns", A).stdout
    assert [line.split("\t")[1].split()[0] for line in ledger.splitlines()[1:-1]] == [
        "+10", "-6", "+6", "-2", "+20"]
    assert "balance: 28 pawns" in ledger

    settled = club.cli("club", "settle", "--now", now("2026-04-06")).stdout
    assert "most games 2025" in settled and "9 games" in settled
    report = club.cli("club", "report", "--year", "2025", "--format", "csv",
                      "--now", now("2026-04-06")).stdout.splitlines()
    for row in ("members,regular,6,", "members,family,1,", "members,junior,1,",
                f"expiry,{H},2025-06-30,lapsed", "fees,entry,1500 yen,6 pawns",
                "fees,membership,3000 yen,0 pawns", "pawns,prize,+12 pawns,3",
                f"prize,Prelim 1,{A},6 pawns", f"prize,Prelim 2,{F},3 pawns",
                f"prize,Prelim 2,{G},3 pawns", f"award,2025,{D},9",
                "games,Prelim 1,12,", "games,Prelim 2,12,", "games,Ladder 1,1,"):
        assert row in report, (row, report)
    assert not any(tutorial in row for row in report)
    ja = club.cli("club", "report", "--year", "2025", "--lang", "ja",
                  "--now", now("2026-04-06")).stdout
    assert "年間最多対局賞" in ja and "9局" in ja and "トーナメント・プライズ" in ja
