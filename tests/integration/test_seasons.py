"""T3: the shogi net league's seasons in the store (issue 24, seed 002): classes as league
events, the season's end in the sweep, the TD's rest and scoped withdraw, the next
season, the 名人. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from relaybot.app.season_end import end_seasons
from relaybot.club.errors import AdminError
from relaybot.club.grade_book import grade_of
from relaybot.club.members import MemberInput, add_member
from relaybot.club.season_book import (
    SeasonInput,
    create_season,
    find_season,
    member_league_titles,
    next_input,
    plan_next,
    season_games,
    season_json,
)
from relaybot.pipeline.td import Context, find_commands
from relaybot.store.db import Store
from relaybot.store.models import Event, Game, Member, Move
from tests.integration.test_cli import one_line_error, relaybot
from tests.integration.test_store import cfg_for

pytestmark = pytest.mark.integration
NOW = datetime(2026, 12, 20, tzinfo=UTC)
END = datetime(2027, 7, 1, 3, tzinfo=UTC)  # noon of 1 July in Tokyo: the season is over


def _members(store: Store, db_url: str, prefix: str, n: int) -> list[str]:
    cfg = cfg_for(db_url)
    emails = [f"{prefix}{i}@example.jp" for i in range(1, n + 1)]
    with store.session() as s:
        for i, email in enumerate(emails, start=1):
            add_member(s, cfg, MemberInput(f"{prefix.upper()}, {i}", email, lang="ja"), NOW)
    return emails


def _season(store: Store, db_url: str) -> dict[str, list[str]]:
    classes = {c: _members(store, db_url, c.lower(), 8) for c in ("S", "A", "B")}
    with store.session() as s:
        create_season(s, cfg_for(db_url), SeasonInput(
            "第2期", date(2027, 1, 1), list(classes.items())), NOW)
    return classes


def _win(game: Game, winner: int) -> None:
    game.status, game.result, game.termination = "finished", ("sente", "gote")[winner], \
        "resignation"
    game.ply_count, game.end_date = 40, date(2027, 3, 1)


def _td(s: object, db_url: str, line: str, now: datetime) -> str:
    (found,) = find_commands(line)
    done = found.command.run(Context(s, cfg_for(db_url), now), found.args, "")  # type: ignore[arg-type]
    assert done.ok, done.message
    return done.message


def test_t3_rule2_rule6_a_season_refuses_a_class_of_three(store: Store, db_url: str) -> None:
    """Rule 2 「1クラスの人数は8人以上とする」, rule 6 「定員は、8名の固定とする」."""
    emails = _members(store, db_url, "q", 3)
    with store.session() as s, pytest.raises(AdminError, match="exactly 8"):
        create_season(s, cfg_for(db_url), SeasonInput("第2期", date(2027, 1, 1),
                                                      [("S", emails)]), NOW)


def test_t3_rule12_rule14_classes_are_league_events_from_the_10th(
        store: Store, db_url: str) -> None:
    """Rule 12 「対局は、1か月目の10日から6か月目の月末までとする」; rule 14: 8 play all."""
    _season(store, db_url)
    with store.session() as s:
        season = find_season(s, "第2期")
        assert season.end_date == date(2027, 6, 30)
        games = season_games(s, season)
        assert len(games) == 3 * 28 and {g.start_date for g in games} == {date(2027, 1, 10)}
        assert {e.kind for e in s.scalars(select(Event))} == {"league"}
        data = season_json(s, season)
    assert [c["event"] for c in data["classes"]] == ["第2期S級", "第2期A級", "第2期B級"]
    assert data["ended"] is False
    assert [p["start_order"] for p in data["classes"][0]["players"]] == list(range(1, 9))


def test_t3_rule8_rule12_the_season_end_silent_side_loses_else_both(
        store: Store, db_url: str) -> None:
    """Rule 8 「10日以上連絡が無く、そのまま対局終了期限を迎えた場合…音信不通になったほうを切れ
    負け」; rule 12 「それまでに終わらない対局は、双方の負けとする」; rule 13: the S winner is
    名人. S: s1 wins every game; the game s7-s8 stays unfinished with 先手 silent since the
    start (loses alone); s5-s6 has one move relayed to 後手 on 25 June (both lose)."""
    classes = _season(store, db_url)
    with store.session() as s:
        ids = {m.email: m.id for m in s.scalars(select(Member))}
        by_id = {v: k for k, v in ids.items()}
        open_games = {}
        for g in season_games(s, find_season(s, "第2期")):
            pair = {by_id[g.side0_id], by_id[g.side1_id]}
            if pair in ({"s7@example.jp", "s8@example.jp"}, {"s5@example.jp", "s6@example.jp"}):
                open_games[frozenset(pair)] = g.id
                continue
            # the player listed first in the class (lower number) wins
            first = min(pair, key=lambda e: (e[0], int(e[1:].split("@")[0])))
            _win(g, 0 if by_id[g.side0_id] == first else 1)
        late = s.get(Game, open_games[frozenset({"s5@example.jp", "s6@example.jp"})])
        assert late is not None
        s.add(Move(game_id=late.id, ply=0, canon="7g7f", text="７六歩", keys="7g7f",
                   sent_at=datetime(2027, 6, 25, 3, tzinfo=UTC)))
        late.plies, late.ply_count = "7g7f", 1
    with store.session() as s:
        assert end_seasons(s, cfg_for(db_url), END - timedelta(days=1)) == 0  # 30 June
        assert end_seasons(s, cfg_for(db_url), END) == 2
        silent = s.get(Game, open_games[frozenset({"s7@example.jp", "s8@example.jp"})])
        late = s.get(Game, open_games[frozenset({"s5@example.jp", "s6@example.jp"})])
        assert silent is not None and late is not None
        assert silent.result == "0-1" and silent.termination == "time"  # 後手 wins
        assert late.result == "0-0"  # both lose
        data = season_json(s, find_season(s, "第2期"))
        s1 = s.scalars(select(Member).where(Member.email == "s1@example.jp")).one()
        assert member_league_titles(s, s1.id) == ["名人"]
        assert grade_of(s, s1)[0] >= 0  # 名人 is no JCCA title: grades read without it
    assert data["ended"] is True
    assert data["titles"] == [{"email": "s1@example.jp", "title": "名人"}]
    s_rows = data["classes"][0]["players"]
    assert [p["email"] for p in s_rows][:2] == ["s1@example.jp", "s2@example.jp"]
    outcome = {p["email"]: p["outcome"] for c in data["classes"] for p in c["players"]}
    assert [outcome[e] for e in classes["S"]][5:] == ["relegated"] * 3
    assert [outcome[e] for e in classes["A"]][:3] == ["promoted"] * 3
    assert [outcome[e] for e in classes["B"]][:3] == ["promoted"] * 3
    assert [outcome[e] for e in classes["B"]][5:] == ["stays"] * 3  # the lowest class


def test_t3_rule8_a_mid_season_rest_loses_every_game_even_a_win(
        store: Store, db_url: str) -> None:
    """Rule 8 「途中休場した人は、全対局不戦敗の扱いとなり、降級人数に含まれるが、降級としない」;
    a withdrawal named for the season touches no game outside it."""
    classes = _season(store, db_url)
    a1 = classes["A"][0]
    with store.session() as s:
        ids = {m.email: m.id for m in s.scalars(select(Member))}
        won = next(g for g in season_games(s, find_season(s, "第2期"))
                   if g.side0_id == ids[a1])
        _win(won, 0)
    with store.session() as s:
        said = _td(s, db_url, f"rest {a1}", datetime(2027, 2, 1, tzinfo=UTC))
        assert "rests in 第2期" in said
        rows = season_json(s, find_season(s, "第2期"))["classes"][1]["players"]
    me = next(p for p in rows if p["email"] == a1)
    assert me["wins"] == 0 and me["losses"] == 7 and me["state"] == "rest"
    assert rows[-1]["email"] == a1


def test_t3_rule4_to_rule8_season_next_builds_the_classes(store: Store, db_url: str) -> None:
    """Rules 4-8 from the store: after a season where the first listed wins every game,
    ``season next`` with a rest in S and two first-timers (2100 points: A; 1300: the
    lowest class, B)."""
    classes = _season(store, db_url)
    new = _members(store, db_url, "n", 2)
    with store.session() as s:
        ids = {m.email: m.id for m in s.scalars(select(Member))}
        order = {e: i for c in classes.values() for i, e in enumerate(c)}
        by_id = {v: k for k, v in ids.items()}
        for g in season_games(s, find_season(s, "第2期")):
            a, b = by_id[g.side0_id], by_id[g.side1_id]
            _win(g, 0 if order[a] < order[b] else 1)
    with store.session() as s:
        end_seasons(s, cfg_for(db_url), END)
        season = find_season(s, "第2期")
        plan = plan_next(s, season, [(new[0], "2100"), (new[1], "1300")], ["s2@example.jp"])
        got = {letter: [p.player for p in placed] for letter, placed in plan.classes}
        assert got["S"] == ["s1@example.jp", "s3@example.jp", "s4@example.jp",
                            "s5@example.jp", "a1@example.jp", "a2@example.jp",
                            "a3@example.jp", "a4@example.jp"]
        assert got["A"][:3] == ["s6@example.jp", "s7@example.jp", "s8@example.jp"]
        assert got["A"][-1] == new[0] and got["B"][-1] == new[1]
        assert dict(plan.resting) == {"s2@example.jp": "A"}
        created, games = create_season(s, cfg_for(db_url), next_input(
            season, "第3期", date(2027, 7, 1), plan), END)
        assert created.number == 2 and len(games) == 28 + 28 + 36


@pytest.mark.slow
def test_t3_season_commands_from_the_command_line(tmp_path: Path) -> None:
    """INTERFACE "Seasons": ``season new`` (refusing a class of 3, rule 2), ``season show
    --json``, the TD's ``rest`` with ``--now``, ``season next`` refused before the end."""
    relaybot(tmp_path, "init")
    rows = ["name,email,lang,tz,rating,notation"]
    people = {c: [f"{c.lower()}{i}@example.jp" for i in range(1, 9)] for c in "SAB"}
    rows += [f'"{e.split("@")[0]}, X",{e},ja,Asia/Tokyo,,san'
             for c in people.values() for e in c]
    (tmp_path / "m.csv").write_text("\n".join(rows) + "\n")
    assert relaybot(tmp_path, "member", "import", "m.csv").returncode == 0
    small = relaybot(tmp_path, "season", "new", "第1期", "--game", "shogi", "--start",
                     "2027-01-01", "--class", "S=s1@example.jp,s2@example.jp,s3@example.jp")
    one_line_error(small, "exactly 8")
    args = [a for c, p in people.items() for a in ("--class", f"{c}={','.join(p)}")]
    made = relaybot(tmp_path, "season", "new", "第2期", "--game", "shogi", "--start",
                    "2027-01-01", *args, "--now", "2026-12-25T09:00:00+09:00")
    assert made.returncode == 0, made.stderr
    shown = json.loads(relaybot(tmp_path, "season", "show", "第2期", "--json").stdout)
    assert (shown["season"], shown["game"], shown["start"], shown["end"], shown["ended"]) \
        == ("第2期", "shogi", "2027-01-01", "2027-06-30", False)
    assert [c["class"] for c in shown["classes"]] == ["S", "A", "B"]
    first = shown["classes"][0]["players"][0]
    assert first["email"] == "s1@example.jp" and first["outcome"] is None
    assert {"email", "start_order", "rank", "wins", "losses", "outcome"} <= set(first)
    rest = relaybot(tmp_path, "td", "--now", "2027-02-01T09:00:00+09:00", "rest",
                    "a3@example.jp")
    assert rest.returncode == 0, rest.stderr
    shown = json.loads(relaybot(tmp_path, "season", "show", "第2期", "--json").stdout)
    a3 = next(p for p in shown["classes"][1]["players"] if p["email"] == "a3@example.jp")
    assert a3["state"] == "rest" and a3["losses"] == 7
    early = relaybot(tmp_path, "season", "next", "第2期", "第3期", "--start", "2027-07-01")
    one_line_error(early, "has not ended")


def test_t3_rule10_a_question_stops_no_clock_in_a_league(store: Store, db_url: str) -> None:
    """Rule 10 「対局不能な状態であっても、一時的な中断は認められず、持ち日数を消費する」: a
    question to the TD in a league game makes no pause (J13 pauses elsewhere)."""
    from relaybot.club.daybooks import game_ledger
    from relaybot.club.gamefile import GameFile
    from relaybot.store.models import Question

    _season(store, db_url)
    with store.session() as s:
        game = season_games(s, find_season(s, "第2期"))[0]
        s.add(Question(game_id=game.id, colour=0, text="?",
                       asked_at=datetime(2027, 1, 12, tzinfo=UTC)))
        s.flush()
        _, pauses = game_ledger(s, GameFile.load(s, game))
        assert pauses == []
        game.event = None  # the same game outside a league: the question pauses it
        s.flush()
        _, pauses = game_ledger(s, GameFile.load(s, game))
        assert pauses != []


def test_t3_rule19_rule20_month_end_progress_and_the_final_standings(
        store: Store, db_url: str) -> None:
    """Rule 19 「1か月毎(月末)に対局の進行状況を会議室、または、クラス幹事に報告する」; rule 20
    「各クラスで、参加者の中から、クラス幹事を決める」: at each month's end the secretary of S
    (s8) gets S's progress and the TD every class's, once; at the season's end every player
    gets their class's final standings and their place next season."""
    from relaybot.app.season_reports import progress_reports
    from relaybot.store.models import Outbox

    classes = {c: _members(store, db_url, c.lower(), 8) for c in ("S", "A", "B")}
    cfg = cfg_for(db_url)
    with store.session() as s:
        create_season(s, cfg, SeasonInput("第2期", date(2027, 1, 1), list(classes.items()),
                                          secretaries={"S": "s8@example.jp"}), NOW)
        first = season_games(s, find_season(s, "第2期"))[0]
        _win(first, 0)
    jan30 = datetime(2027, 1, 30, 3, tzinfo=UTC)
    jan31 = datetime(2027, 1, 31, 3, tzinfo=UTC)  # noon of the month's last day in Tokyo
    with store.session() as s:
        assert progress_reports(s, cfg, jan30) == 0
        assert progress_reports(s, cfg, jan31) == 2  # s8 for S, the TD for all
        assert progress_reports(s, cfg, jan31 + timedelta(days=1)) == 0  # once a month
        rows = s.scalars(select(Outbox).where(Outbox.kind == "season_progress")
                         .order_by(Outbox.id)).all()
        assert [r.recipient for r in rows] == ["s8@example.jp", "td@club.example"]
        secretary = rows[0].raw.decode(errors="replace")
        assert progress_reports(s, cfg, datetime(2027, 2, 28, 3, tzinfo=UTC)) == 2
    assert "1 game(s) finished, 27 in progress" not in secretary  # Japanese: her language
    with store.session() as s:
        ended = end_seasons(s, cfg, END)
        assert ended == 3 * 28 - 1
        finals = s.scalars(select(Outbox).where(Outbox.kind == "season_final")).all()
        assert sorted(r.recipient for r in finals) == sorted(
            e for c in classes.values() for e in c)
        assert end_seasons(s, cfg, END + timedelta(days=1)) == 0
        assert len(s.scalars(select(Outbox).where(Outbox.kind == "season_final")).all()) == 24


def test_t3_rule16_a_mating_line_sent_before_the_end_wins_when_it_was_sent(
        store: Store, db_url: str) -> None:
    """Rule 16 「その返信が期限内になくても、詰みの先読みが正しければ、それを送信した時点で勝ち
    とする」: s1 sends ▲２二銀打 with the line that mates after every defence (△１二玉
    ▲１三金打) on 25 June; no answer comes by the end: s1 wins on 25 June. s3 sent the
    same on 1 June, far from the deadline: the line binds nobody, and s4, silent since,
    loses on time at the end (rule 8) instead."""
    from relaybot.games import rules_for

    shogi = rules_for("shogi")
    board = shogi.load("8k/9/7P1/9/9/9/9/9/4K4 b GS 1")
    shogi.play(board, "S*2b")
    after = shogi.save(board)
    _season(store, db_url)
    pairs = {}
    with store.session() as s:
        ids = {m.email: m.id for m in s.scalars(select(Member))}
        for g in season_games(s, find_season(s, "第2期")):
            for a, b, sent in (("s1", "s2", 25), ("s3", "s4", 1)):
                if (g.side0_id, g.side1_id) in ((ids[f"{a}@example.jp"], ids[f"{b}@example.jp"]),
                                                (ids[f"{b}@example.jp"], ids[f"{a}@example.jp"])):
                    pairs[a] = g.id
                    g.side0_id, g.side1_id = ids[f"{a}@example.jp"], ids[f"{b}@example.jp"]
                    g.position, g.plies, g.ply_count = after, "S*2b", 1
                    g.proposals, g.proposals_by = [["1a1b", "G*1c"]], 0
                    s.add(Move(game_id=g.id, ply=0, canon="S*2b", text="２二銀打",
                               keys="S*2b", sent_at=datetime(2027, 6, sent, 3, tzinfo=UTC)))
    with store.session() as s:
        # the record of this made-up position cannot be written: the outcome is read
        # as the season's end decides it
        from relaybot.app.season_end import final_outcome
        from relaybot.pipeline.lifecycle import load_game

        got = {}
        for who, day in (("s1", 25), ("s3", 1)):
            game = s.get(Game, pairs[who])
            assert game is not None
            outcome, when = final_outcome(load_game(s, game, END), date(2027, 6, day),
                                          date(2027, 6, 30))
            got[who] = (outcome.winner, outcome.termination, when)
    assert got["s1"] == (0, "adjudication", date(2027, 6, 25))
    assert got["s3"] == (0, "time", date(2027, 6, 30))


def _ended_season(store: Store, db_url: str) -> None:
    """第2期 played out (the player listed first in a class wins) and ended."""
    classes = _season(store, db_url)
    order = {e: i for c in classes.values() for i, e in enumerate(c)}
    with store.session() as s:
        by_id = {m.id: m.email for m in s.scalars(select(Member))}
        for g in season_games(s, find_season(s, "第2期")):
            a, b = by_id[g.side0_id], by_id[g.side1_id]
            _win(g, 0 if order[a] < order[b] else 1)
    with store.session() as s:
        end_seasons(s, cfg_for(db_url), END)


def test_t3_rule12_season_next_starts_after_the_season_it_follows(
        store: Store, db_url: str) -> None:
    """Rule 12: seasons of six months follow each other; ``season next`` refuses a start
    on or before the last day of the season it follows (which would run both at once),
    a start that is not the first of a month, a name taken, and a second next season of
    the same season."""
    from relaybot.club.season_book import check_next

    _ended_season(store, db_url)
    with store.session() as s:
        season = find_season(s, "第2期")
        for name, start, needle in (("第3期", date(2027, 1, 1), "after 第2期 ends"),
                                    ("第3期", date(2027, 6, 1), "after 第2期 ends"),
                                    ("第3期", date(2027, 7, 15), "first of a month"),
                                    ("第2期", date(2027, 7, 1), "already exists")):
            with pytest.raises(AdminError, match=needle):
                check_next(s, season, name, start)
        plan = plan_next(s, season, [], [])
        with pytest.raises(AdminError, match="after 第2期 ends"):
            create_season(s, cfg_for(db_url), next_input(
                season, "第3期", date(2027, 1, 1), plan), END)
        check_next(s, season, "第3期", date(2027, 7, 1))
        create_season(s, cfg_for(db_url), next_input(
            season, "第3期", date(2027, 7, 1), plan), END)
        with pytest.raises(AdminError, match="already has its next season, 第3期"):
            check_next(s, season, "第4期", date(2028, 1, 1))


def test_t3_season_next_refused_prints_no_plan(
        store: Store, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """INTERFACE "Command line": a refused ``season next`` (with or without ``--dry-run``)
    is one clear line on stderr, with no plan of classes printed before it."""
    import os

    from relaybot.cli import main

    _ended_season(store, db_url)
    for key in [k for k in os.environ if k.startswith("RELAYBOT_")]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RELAYBOT_DATABASE_URL", db_url)
    assert main(["init"]) == 0
    capsys.readouterr()
    for extra in ((), ("--dry-run",)):
        code = main(["season", "next", "第2期", "第3期", "--start", "2027-01-01", *extra])
        out, err = capsys.readouterr()
        assert code != 0 and out == ""
        assert err.count("\n") == 1 and "after 第2期 ends" in err, err
    assert main(["season", "next", "第2期", "第3期", "--start", "2027-07-01",
                 "--dry-run"]) == 0
    assert capsys.readouterr().out.startswith("S: 1. ")
    assert main(["season", "show", "第2期"]) == 0  # in English words: 1 win, 1 loss
    shown = capsys.readouterr().out
    assert "7 wins 0 losses" in shown and "1 win 6 losses" in shown and "1 wins" not in shown


def test_j20_t3_a_withdrawal_that_decides_nothing_is_refused(
        store: Store, db_url: str) -> None:
    """J20, rule 8: ``withdraw ADDR lost EVENT`` for a player with no unfinished game in
    that event (a class they do not play in, a member outside the league) is refused with
    the reason, not answered "0 games lost" as if done; in their own class it acts."""
    classes = _season(store, db_url)
    outsider = _members(store, db_url, "z", 1)[0]
    s1 = classes["S"][0]
    when = datetime(2027, 2, 1, tzinfo=UTC)
    with store.session() as s:
        for line in (f"withdraw {s1} lost 第2期A級", f"withdraw {outsider} lost",
                     f"withdraw {outsider} void 第2期"):
            (found,) = find_commands(line)
            done = found.command.run(Context(s, cfg_for(db_url), when), found.args, "")
            assert not done.ok, line
            assert "no unfinished game" in done.message, done.message
        assert _td(s, db_url, f"withdraw {s1} lost 第2期S級", when).endswith("7 games lost")


def test_t3_rule8_a_rest_naming_another_class_is_refused(store: Store, db_url: str) -> None:
    """Rule 8 途中休場: ``rest ADDR CLASS`` names the player's own class; naming a class the
    player does not play in decides nothing and says so."""
    classes = _season(store, db_url)
    s1 = classes["S"][0]
    with store.session() as s:
        (found,) = find_commands(f"rest {s1} 第2期A級")
        done = found.command.run(Context(s, cfg_for(db_url), datetime(2027, 2, 1, tzinfo=UTC)),
                                 found.args, "")
        assert not done.ok and "第2期A級" in done.message, done.message
        assert "rests in 第2期" in _td(s, db_url, f"rest {s1} 第2期S級",
                                        datetime(2027, 2, 1, tzinfo=UTC))


def test_a_td_decision_on_a_shogi_game_reads_in_shogi_words(
        store: Store, db_url: str) -> None:
    """INTERFACE "TD commands": the TD writes shogi results as sente/gote; the answer says
    the result so too (Gote wins), not the stored 0-1, also when refusing a second one."""
    _season(store, db_url)
    when = datetime(2027, 2, 1, tzinfo=UTC)
    with store.session() as s:
        game = season_games(s, find_season(s, "第2期"))[0]
        assert _td(s, db_url, f"adjudicate {game.id} gote", when).startswith(
            f"game {game.id}: Gote wins (")
        (found,) = find_commands(f"forfeit {game.id} sente")
        done = found.command.run(Context(s, cfg_for(db_url), when), found.args, "")
        assert not done.ok and done.message.endswith("has already ended (Gote wins)")


def test_t3_rule13_a_past_season_shows_the_titles_of_its_own_time(
        store: Store, db_url: str) -> None:
    """Rule 13 「通算5期名人を獲得すると、永世名人の称号を与える」: the season in which a member
    becomes 名人 for the fifth time gives 永世名人; ``season show`` of an earlier season
    (the first 名人) gives 名人 alone, whatever the member won after it."""
    from relaybot.club.season_book import season_titles
    from relaybot.store.models import MemberTitle, Season

    (winner,) = _members(store, db_url, "m", 1)
    with store.session() as s:
        member_id = s.scalars(select(Member.id).where(Member.email == winner)).one()
        seasons = []
        for n in range(6):
            start = date(2020 + n // 2, 1 + 6 * (n % 2), 1)
            season = Season(name=f"第{n + 1}期", game="shogi", number=n + 1,
                            start_date=start, end_date=start + timedelta(days=180),
                            created_at=NOW)
            s.add(season)
            seasons.append(season)
            s.add(MemberTitle(member_id=member_id, title="meijin", event=season.name))
        s.flush()
        got = [[t["title"] for t in season_titles(s, season)] for season in seasons]
    assert got == [["名人"]] * 4 + [["名人", "永世名人"]] * 2


def test_t3_rule7_rule8_season_next_refuses_a_rest_or_join_that_cannot_be(
        store: Store, db_url: str) -> None:
    """Rule 8 休場 is for a player of the league: ``--rest`` of a member who does not play
    in the season is refused (it would be dropped without a word), as is a first-timer
    joined twice (rule 7: one class each) or joined and resting at once."""
    _ended_season(store, db_url)
    newcomer = _members(store, db_url, "n", 1)[0]
    with store.session() as s:
        season = find_season(s, "第2期")
        for joins, rests, needle in (([], [newcomer], "does not play in 第2期"),
                                     ([(newcomer, "A"), (newcomer, "B")], [], "named twice"),
                                     ([(newcomer, "A")], [newcomer], "does not play in")):
            with pytest.raises(AdminError, match=needle):
                plan_next(s, season, joins, rests)
        plan = plan_next(s, season, [(newcomer, "A")], ["s1@example.jp"])
        assert dict(plan.resting) == {"s1@example.jp": "A"}


def test_t3_a_player_plays_one_season_at_a_time(store: Store, db_url: str) -> None:
    """T3: the league runs one season at a time (第N期); a season whose days overlap a
    running season's is refused for a player of both, naming them; after the running one
    ends, or for other players, it is made."""
    classes = _season(store, db_url)
    others = _members(store, db_url, "o", 8)
    with store.session() as s:
        with pytest.raises(AdminError, match=r"s1@example\.jp plays in season 第2期"):
            create_season(s, cfg_for(db_url), SeasonInput(
                "研究期", date(2027, 3, 1), [("S", classes["S"])]), NOW)
        create_season(s, cfg_for(db_url), SeasonInput(
            "研究期", date(2027, 3, 1), [("S", others)]), NOW)
