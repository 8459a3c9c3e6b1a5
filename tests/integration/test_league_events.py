"""T3 and T4 as events (INTERFACE ``event new --kind league|salon``): the shogi league's
games and order, the go salon's games on handicap from the points and its order by win
rate and margins. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from relaybot.club.errors import AdminError
from relaybot.club.members import MemberInput, add_member
from relaybot.club.tournaments import (
    EventInput,
    create_event,
    event_standings,
    event_text,
    find_event,
)
from relaybot.games import rules_for
from relaybot.store.db import Store
from relaybot.store.models import Game, Member
from relaybot.web.data import event_page
from tests.integration.test_cli import one_line_error, relaybot
from tests.integration.test_store import cfg_for

pytestmark = pytest.mark.integration
NOW = datetime(2027, 1, 10, tzinfo=UTC)


def _members(store: Store, db_url: str, n: int, **rating: str) -> list[str]:
    cfg = cfg_for(db_url)
    emails = [f"p{i}@example.jp" for i in range(1, n + 1)]
    with store.session() as s:
        for i, email in enumerate(emails, start=1):
            add_member(s, cfg, MemberInput(f"棋士, {i}号", email, lang="ja",
                                           rank=rating.get(email)), NOW)
    return emails


def _finish(game: Game, result: str, termination: str = "resignation") -> None:
    game.status, game.result, game.termination = "finished", result, termination
    game.ply_count, game.end_date = 40, NOW.date()


def test_t3_a_shogi_league_of_ten_plays_eight_games_each(store: Store, db_url: str) -> None:
    """Seed 002 rule 14: 9 or more draw 8 opponents each; the games are shogi under the
    league's rules (bank:20, optional proposals) without --game."""
    emails = _members(store, db_url, 10)
    with store.session() as s:
        games = create_event(s, cfg_for(db_url), EventInput("第1期B級", "league", emails), NOW)
        assert len(games) == 40 and {g.kind for g in games} == {"shogi"}
        assert {g.time_control for g in games} == {"bank:20"}
        assert {g.conditionals for g in games} == {"optional"}
        per = Counter(m for g in games for m in (g.side0_id, g.side1_id))
        assert set(per.values()) == {8}


def test_t3_league_order_is_wins_then_the_starting_order(store: Store, db_url: str) -> None:
    """Seed 002 rule 18: wins (千日手・持将棋 half) rank first; equal wins keep the order at
    the start, which is --players' order: the fourth listed beats the first only on wins."""
    emails = _members(store, db_url, 4)
    with store.session() as s:
        games = create_event(s, cfg_for(db_url), EventInput("第1期C級", "league", emails), NOW)
        ids = {m.email: m.id for m in s.query(Member)}
        for g in games:
            pair = {g.side0_id, g.side1_id}
            if pair == {ids["p1@example.jp"], ids["p4@example.jp"]}:
                _finish(g, "1/2-1/2", "sennichite")  # 千日手: half each
            elif ids["p4@example.jp"] in pair:  # p4 wins the others
                _finish(g, "sente" if g.side0_id == ids["p4@example.jp"] else "gote")
            elif ids["p1@example.jp"] in pair:  # p1 wins the others
                _finish(g, "sente" if g.side0_id == ids["p1@example.jp"] else "gote")
        s.flush()
        rows = event_standings(s, find_event(s, "第1期C級"))
    assert [(r.player, r.points) for r in rows[:2]] == [("棋士, 1号", 2.5), ("棋士, 4号", 2.5)]
    assert rows[0].rank == 1 and rows[1].rank == 2  # not shared: the starting order


def test_t4_a_salon_league_plays_on_points_and_ranks_by_win_rate(
        store: Store, db_url: str) -> None:
    """Seed 004: every game's stones and komi from the two players' points (4)), the
    weaker taking Black; the order is the win rate, then the margins (resignation 20)."""
    emails = _members(store, db_url, 3, **{"p1@example.jp": "3d", "p2@example.jp": "1k",
                                           "p3@example.jp": "1k"})
    with store.session() as s:
        games = create_event(s, cfg_for(db_url), EventInput("2027年春 公式戦", "salon", emails),
                             NOW)
        go = rules_for("go")
        ids = {m.email: m.id for m in s.query(Member)}
        for g in games:
            assert g.kind == "go"
            board = go.load(g.position)
            if ids["p1@example.jp"] in (g.side0_id, g.side1_id):
                assert g.side1_id == ids["p1@example.jp"]  # the stronger takes White
                assert board.handicap >= 2  # 3d against 1k: stones
                _finish(g, "W+R")  # p1 wins by resignation: +20 each
            else:
                assert board.handicap == 0
                _finish(g, "B+3.5", "counted")  # Black wins by 3.5
        s.flush()
        event = find_event(s, "2027年春 公式戦")
        rows = event_standings(s, event)
        text = event_text(s, event, "ja")
        page = event_page(s, event, "ja", datetime(2027, 6, 1, tzinfo=UTC))
    assert [t["title"] for t in page["tiebreaks"]][:2] == ["勝率（%）", "目数差"]
    assert page["rows"][0]["rate"] == 100.0 and page["kind"] == "サロンリーグ"
    assert rows[0].player == "棋士, 1号" and rows[0].margin == 40.0
    assert {r.margin for r in rows[1:]} == {-16.5, -23.5}
    assert "勝率" in text and "目数差" in text and "持点" in text


def test_a_salon_league_is_go(store: Store, db_url: str) -> None:
    emails = _members(store, db_url, 2)
    with store.session() as s, pytest.raises(AdminError, match="--game go"):
        create_event(s, cfg_for(db_url), EventInput("x", "salon", emails, game="shogi"), NOW)


def test_a_salon_league_names_players_without_go_points(store: Store, db_url: str) -> None:
    """R4: a salon's games take their terms from the points, so a player with none, or
    with the 0 of a strength not yet known (seed 004 section 2), stops the league before
    any game starts, with the setting that gives them points; nothing is created."""
    emails = _members(store, db_url, 3, **{"p1@example.jp": "2k", "p2@example.jp": "12k"})
    with store.session() as s, pytest.raises(AdminError) as info:
        create_event(s, cfg_for(db_url), EventInput("秋季", "salon", emails), NOW)
    message = str(info.value)
    assert "p2@example.jp, p3@example.jp have none yet" in message
    assert "p1@example.jp" not in message
    assert "member set ADDR --game go --rating N" in message
    assert "--handicap" not in message  # not an option of event new
    with store.session() as s:
        assert s.query(Game).count() == 0


def test_event_new_league_and_salon_from_the_command_line(tmp_path: Path) -> None:
    """INTERFACE ``event new NAME --kind league|salon``: the league plays shogi and the
    salon go without --game; ``event show`` prints each kind's own order."""
    relaybot(tmp_path, "init")
    for i in range(1, 4):
        proc = relaybot(tmp_path, "member", "add", "--name", f"Player, {i}",
                        "--email", f"p{i}@example.jp", "--game", "go", "--rank", f"{i}k")
        assert proc.returncode == 0, proc.stderr
    players = "p1@example.jp,p2@example.jp,p3@example.jp"
    league = relaybot(tmp_path, "event", "new", "Shogi A", "--kind", "league",
                      "--players", players)
    assert league.returncode == 0, league.stderr
    salon = relaybot(tmp_path, "event", "new", "Go salon", "--kind", "salon",
                     "--players", players)
    assert salon.returncode == 0, salon.stderr
    assert salon.stdout.splitlines()[0] == "event Go salon: 3 games started"
    games = relaybot(tmp_path, "game", "list").stdout
    assert games.count("\tshogi\t") == 3 and games.count("\tgo\t") == 3
    shown = relaybot(tmp_path, "event", "show", "Go salon").stdout
    assert "Win%" in shown and "Margin" in shown and "Salon points" in shown
    assert "Pts" in relaybot(tmp_path, "event", "show", "Shogi A").stdout
    wrong = relaybot(tmp_path, "event", "new", "X", "--kind", "salon", "--game", "chess",
                     "--players", players)
    one_line_error(wrong, "--game go")
    # the league is the shogi net league's: a chess one is a section (round robin)
    chess = relaybot(tmp_path, "event", "new", "Y", "--kind", "league", "--game", "chess",
                     "--players", players)
    one_line_error(chess, "--game shogi (for a chess round robin: --kind section)")
    # an event's TD never plays in it, by any of their registered addresses
    relaybot(tmp_path, "member", "set", "p1@example.jp", "--add-address", "p1.td@example.jp")
    for td in ("p1@example.jp", "P1.TD@example.jp"):
        playing = relaybot(tmp_path, "event", "new", "Z", "--kind", "salon", "--players",
                           players, "--td", td)
        one_line_error(playing, "--td: the event's TD cannot play in it")
