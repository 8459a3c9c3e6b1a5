"""Issue 24 "Must show": a season of the shogi net league of three classes (S, A, B of 8)
played through the real Dovecot in fast forward, every step the real ``relaybot``
command (``season new``, ``run --once --now``, ``season show --json``, ``season next``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import select

from relaybot.store.models import Game, Member, Outbox
from tests.integration.relay_harness import TD, Club, Player
from tests.servers.smtp_sink import Captured

pytestmark = pytest.mark.integration

CLASSES = {c: [f"{c.lower()}{i}@example.jp" for i in range(1, 9)] for c in "SAB"}
NEW = ["n1@example.jp", "n2@example.jp"]
SILENT = ("s5@example.jp", "s6@example.jp")  # s5 silent at the end: s6 wins (rule 8)
BOTH_LOSE = ("a1@example.jp", "a2@example.jp")  # moves to the last week: both lose (rule 12)
DRAW = ("b1@example.jp", "b2@example.jp")  # 千日手, entered by the TD: half a win each


def _number(address: str) -> int:
    return int(address[1:].split("@")[0])


def _kind(mail: Captured) -> str:
    return str(mail.parsed["X-Relaybot-Kind"])


def _run(club: Club, when: str) -> None:
    out = club.cli("run", "--once", "--now", when)
    assert out.stdout.startswith("mail: "), out.stdout


def _show(club: Club, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(club.cli("season", "show", name, "--json").stdout)
    return data


@pytest.mark.slow
def test_t3_rules_4_to_19_a_simulated_season_of_three_classes(club: Club) -> None:
    """Seed 002 played as its 順位戦幹事 would, results worked out by hand.

    第1期 starts on 1 July 2025 (rule 12 「対局開始は、1月と7月とする」): S, A and B of 8
    in their starting order 1-8, s1 the secretary of S (rule 20 「クラス幹事を決める」).
    The TD enters 82 of the 84 results by mail in two batches: in every game the lower
    number wins (s1 beats s2 ...), except b1-b2, a 千日手 (rule 15 「0.5勝とする」).
    Two games are played by mail to the deadline (their banks set to 200 days in the
    store: the fast forward's stand-in for the months of moves a real game makes):

    - s5-s6: the last move is relayed to s5 in July; s5 is silent to the end (rule 8
      「10日以上連絡が無く…音信不通になったほうを切れ負け、相手を勝ちとする」): s6 wins.
    - a1-a2: the last move is relayed on 24 December, 7 days before the end: both lose
      (rule 12 「それまでに終わらない対局は、双方の負けとする」).

    The standings (rule 18: wins, then the starting order):

    - S: s1 7, s2 6, s3 5, s4 4, s6 3 (s7, s8, s5), s5 2, s7 1, s8 0. 名人 s1 (rule 13).
      The last three, s5, s7, s8, all below 50%, go down (rule 6 「S級からの降級は、1/3の
      3名」).
    - A: a1 6 (1 loss: the double loss), a2 6, a3 5, a4 4, a5 3, a6 2, a7 1, a8 0; a1
      before a2 by the starting order. S keeps 5 (s1-s4, s6), so A sends up 3: a1-a3
      (rule 6 「A級からの昇級は、S級が定員の8名となる人数」); a6-a8 go down (1/3 of 8, rule 5).
    - B: b1 6.5, b2 6.5, b3 5, b4 4 ... b8 0; b1-b3 go up; nobody goes down from the
      lowest class.

    At each month's end the progress goes to s1 and the TD (rule 19); at the end every
    player gets the final standings. Then ``season next`` with s2 resting (rule 6
    「S級での休場は、Aへ降級」: kept in A, and the next of A, a4, goes up to keep S at 8)
    and first-timers n1 (2100 points: A) and n2 (1300: below B's band, so the lowest
    class, B) (rule 7 「棋力にふさわしいリーグの下位に追加する」). Rule 8's order in each
    class (relegated, staying, promoted, back after a rest, new):

    - S: s1, s3, s4, s6 (staying), a1, a2, a3, a4 (promoted)
    - A: s5, s7, s8 (relegated), a5 (staying), b1, b2, b3 (promoted), n1 (new)
    - B: a6, a7, a8 (relegated), b4 ... b8 (staying), n2 (new); s2 resting (A kept).
    """
    club.clock = datetime(2025, 6, 20, 0, 0, tzinfo=UTC)
    everyone = [a for c in CLASSES.values() for a in c] + NEW
    players = {a: club.member(f"{a[0].upper()}, {a[1:].split('@')[0]}", a, lang="ja")
               for a in everyone}
    td = Player("TD", TD, club)
    args = [x for c, who in CLASSES.items() for x in ("--class", f"{c}={','.join(who)}")]
    club.cli("season", "new", "第1期", "--game", "shogi", "--start", "2025-07-01", *args,
             "--secretary", "S=s1@example.jp", "--now", "2025-06-25T09:00:00+09:00")
    with club.store.session() as s:
        email = {m.id: m.email for m in s.scalars(select(Member))}
        games = {frozenset((email[g.side0_id], email[g.side1_id])): g
                 for g in s.scalars(select(Game))}
        sente = {pair: email[g.side0_id] for pair, g in games.items()}
        ids = {pair: g.id for pair, g in games.items()}
        for pair in (SILENT, BOTH_LOSE):
            games[frozenset(pair)].time_control = "bank:200"
    assert len(ids) == 84
    _run(club, "2025-07-10T10:00:00+09:00")  # the start mails go out

    # the two games played by mail: s5-s6 until s5 falls silent; a1-a2's first move
    silent = ids[frozenset(SILENT)]
    first = players[sente[frozenset(SILENT)]]
    first.send("1 ▲７六歩", to=first.game_address(silent), subject=f"[{silent}]",
               at=datetime(2025, 7, 11, 1, tzinfo=UTC))
    if first.address == SILENT[0]:  # s5 is sente: s6 answers, and s5 is to move
        players[SILENT[1]].send("2 △３四歩", to=players[SILENT[1]].game_address(silent),
                                subject=f"[{silent}]", at=datetime(2025, 7, 12, 1, tzinfo=UTC))
    late = ids[frozenset(BOTH_LOSE)]
    a_sente = players[sente[frozenset(BOTH_LOSE)]]
    a_gote = players[(set(BOTH_LOSE) - {a_sente.address}).pop()]
    a_sente.send("1 ▲２六歩", to=a_sente.game_address(late), subject=f"[{late}]",
                 at=datetime(2025, 7, 11, 2, tzinfo=UTC))

    # the TD enters the other 82 results by mail, in two batches
    def word(pair: frozenset[str]) -> str:
        if pair == frozenset(DRAW):
            return "draw"
        winner = min(pair, key=_number)
        return "sente" if sente[pair] == winner else "gote"

    batches: list[list[str]] = [[], []]
    for pair, gid in ids.items():
        if pair in (frozenset(SILENT), frozenset(BOTH_LOSE)):
            continue
        batches[next(iter(pair)).startswith("b")].append(f"adjudicate {gid} {word(pair)}")
    assert sum(map(len, batches)) == 82
    for n, lines in enumerate(batches):
        td.send("\n".join(lines), to=td.member_address(), subject=f"results {n + 1}",
                at=datetime(2025, 7, 20 + n, 1, tzinfo=UTC))
    _run(club, "2025-07-22T10:00:00+09:00")
    with club.store.session() as s:  # past the TD's daily cap: in the next summary
        assert len(s.scalars(select(Outbox).where(Outbox.kind == "td_confirm")).all()) == 2
        assert not s.scalars(select(Game).where(Game.status == "active")
                             .where(Game.id.not_in([silent, late]))).all()

    # rule 19: the first month's end: the progress to S's secretary and to the TD
    _run(club, "2025-07-31T12:00:00+09:00")
    progress = [m for m in club.sink.captured if _kind(m) == "season_progress"]
    assert sorted(a for m in progress for a in m.rcpt_tos) == ["s1@example.jp", TD]

    # a1-a2: gote answers on 24 December; sente is to move at the end, 7 days on
    a_gote.send("2 △８四歩", to=a_gote.game_address(late), subject=f"[{late}]",
                at=datetime(2025, 12, 24, 1, tzinfo=UTC))
    _run(club, "2025-12-25T10:00:00+09:00")
    assert _show(club, "第1期")["ended"] is False

    # the season's end
    _run(club, "2026-01-01T12:00:00+09:00")
    finals = [m for m in club.sink.captured if _kind(m) == "season_final"]
    assert sorted(a for m in finals for a in m.rcpt_tos) == sorted(
        a for c in CLASSES.values() for a in c)
    ended = _show(club, "第1期")
    assert ended["ended"] is True
    assert ended["titles"] == [{"email": "s1@example.jp", "title": "名人"}]

    def table(data: dict[str, Any], letter: str, *keys: str) -> list[tuple[Any, ...]]:
        cls = next(c for c in data["classes"] if c["class"] == letter)
        return [tuple(p[k] for k in keys) for p in cls["players"]]

    s_rows = table(ended, "S", "email", "wins", "outcome")
    assert s_rows == [
        ("s1@example.jp", 7, "stays"), ("s2@example.jp", 6, "stays"),
        ("s3@example.jp", 5, "stays"), ("s4@example.jp", 4, "stays"),
        ("s6@example.jp", 3, "stays"), ("s5@example.jp", 2, "relegated"),
        ("s7@example.jp", 1, "relegated"), ("s8@example.jp", 0, "relegated")]
    assert table(ended, "A", "email", "wins", "losses", "outcome") == [
        ("a1@example.jp", 6, 1, "promoted"), ("a2@example.jp", 6, 1, "promoted"),
        ("a3@example.jp", 5, 2, "promoted"), ("a4@example.jp", 4, 3, "stays"),
        ("a5@example.jp", 3, 4, "stays"), ("a6@example.jp", 2, 5, "relegated"),
        ("a7@example.jp", 1, 6, "relegated"), ("a8@example.jp", 0, 7, "relegated")]
    assert table(ended, "B", "email", "wins", "outcome") == [
        ("b1@example.jp", 6.5, "promoted"), ("b2@example.jp", 6.5, "promoted"),
        ("b3@example.jp", 5, "promoted")] + [
        (f"b{i}@example.jp", 8 - i, "stays") for i in range(4, 9)]
    with club.store.session() as s:
        end = {gid: s.get(Game, gid) for gid in (silent, late)}
        assert end[silent] is not None and end[late] is not None
        s5_sente = sente[frozenset(SILENT)] == SILENT[0]
        assert (end[silent].result, end[silent].termination) == \
            ("0-1" if s5_sente else "1-0", "time")
        assert end[late].result == "0-0"  # both lose

    # the next season: s2 rests, n1 and n2 join
    club.cli("season", "next", "第1期", "第2期", "--start", "2026-01-01",
             "--join", "n1@example.jp=2100", "--join", "n2@example.jp=1300",
             "--rest", "s2@example.jp", "--now", "2026-01-01T13:00:00+09:00")
    after = _show(club, "第1期")
    assert table(after, "A", "email", "outcome")[3] == ("a4@example.jp", "promoted")
    nxt = _show(club, "第2期")
    assert [c["class"] for c in nxt["classes"]] == ["S", "A", "B"]
    got = {c["class"]: [p["email"].split("@")[0] for p in
                        sorted(c["players"], key=lambda p: p["start_order"])]
           for c in nxt["classes"]}
    assert got == {"S": ["s1", "s3", "s4", "s6", "a1", "a2", "a3", "a4"],
                   "A": ["s5", "s7", "s8", "a5", "b1", "b2", "b3", "n1"],
                   "B": ["a6", "a7", "a8", "b4", "b5", "b6", "b7", "b8", "n2"]}
    assert nxt["resting"] == [{"email": "s2@example.jp", "class": "A"}]
