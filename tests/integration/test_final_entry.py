"""T1 finals (issue 13 item 7): ``event final`` feeds each player's last final, so the
">= 50% in the last final" branch of the entry rule can fire, and a spent first place or
a final below 50% counts no more."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from relaybot.club.members import MemberInput, add_member
from relaybot.club.tournaments import EventInput, create_event
from relaybot.store.db import Store
from relaybot.store.models import Game, Member
from tests.integration.test_cli import relaybot
from tests.integration.test_store import cfg_for

pytestmark = pytest.mark.integration
NAMES = {c: f"{c.upper()}, {c.upper()}" for c in "abcdefg"}


def event(store: Store, db_url: str, name: str, players: str, start: date,
          won_all: str = "", lost_all: str = "", end: date | None = None,
          final: bool = False) -> None:
    """A group of four (T1, each pair twice): ``won_all`` wins every game, ``lost_all``
    loses every game, the other games are drawn; every game ends on ``end`` (None: the
    games are still being played)."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        games = create_event(s, cfg, EventInput(name, "group",
                                                [f"{c}@example.jp" for c in players],
                                                start=start, final=final),
                             datetime(start.year, start.month, start.day, tzinfo=UTC))
        if end is None:
            return
        for game in games:
            white = s.get(Member, game.side0_id)
            black = s.get(Member, game.side1_id)
            assert white is not None and black is not None
            w, b = white.email[0], black.email[0]
            result = ("1-0" if w == won_all or b == lost_all
                      else "0-1" if b == won_all or w == lost_all else "1/2-1/2")
            game.status, game.result, game.termination = "finished", result, "resignation"
            game.ply_count, game.end_date = 2, end


def test_t1_50_percent_in_the_last_final_enters_the_next_final(tmp_path: Path) -> None:
    """T1, seed 000: 「決勝Tの参加資格は、予選Tの単独1位になった者、70%以上の勝率を上げて同率1位に
    なった者、過去の決勝Tで50%以上の勝率を上げた者となります」; 「過去の決勝Tで50%以上の勝率を上げた
    者は最後に参加した決勝Tで50%未満の勝率であったときは権利消滅」; 「1位権利者は1度決勝トーナメン
    トに参加すると、複数回1位となっても権利消滅」.

    D scored 100% in the 2024 final and 0% in the 2025 one (its last): no entry. B drew
    every game of the 2025 final (50%): entry. A is sole first of the group: entry, until
    A enters a final that starts after the group ended."""
    assert relaybot(tmp_path, "init").returncode == 0
    db_url = f"sqlite:///{tmp_path / 'relaybot.db'}"
    store = Store.open(db_url)
    cfg = cfg_for(db_url)
    with store.session() as s:
        for c, name in NAMES.items():
            add_member(s, cfg, MemberInput(name, f"{c}@example.jp", rating=1500),
                       datetime(2024, 1, 1, tzinfo=UTC))
    event(store, db_url, "Final 2024", "defg", date(2024, 1, 10), won_all="d",
          end=date(2024, 12, 1), final=True)
    event(store, db_url, "Final 2025", "bdef", date(2025, 1, 10), lost_all="d",
          end=date(2025, 12, 1), final=True)
    event(store, db_url, "Preliminary 2026", "abcd", date(2026, 1, 10), won_all="a")
    out = relaybot(tmp_path, "event", "final", "Preliminary 2026")
    assert out.stdout.strip() == "final entry: nobody yet (12 games still being played)"
    with store.session() as s:
        for game in s.query(Game).filter(Game.event == "Preliminary 2026"):
            w, b = game.side0_id, game.side1_id
            a = s.query(Member.id).filter(Member.email == "a@example.jp").scalar()
            game.status, game.ply_count, game.end_date = "finished", 2, date(2026, 6, 1)
            game.result = "1-0" if w == a else "0-1" if b == a else "1/2-1/2"
    out = relaybot(tmp_path, "event", "final", "Preliminary 2026")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ("final entry: A, A (sole first), "
                                  "B, B (50% or more in the last final: Final 2025)")
    event(store, db_url, "Final 2026", "aefg", date(2026, 7, 1), final=True)
    out = relaybot(tmp_path, "event", "final", "Preliminary 2026")
    assert out.stdout.strip() == ("final entry: "
                                  "B, B (50% or more in the last final: Final 2025)")
    store.dispose()
