"""Seed 004 (the PAA go salon's rules) section by section, through the store: points
and ranks (section 2), provisional points and the chair's official ones (section 3),
unknown strength, no result and no loss on time (sections 2, 7), the even game's toss
(section 4). Each test quotes the line of the seed it checks."""

from __future__ import annotations

import dataclasses
import email
from datetime import datetime, timedelta
from email import policy
from email.message import EmailMessage

import pytest
from sqlalchemy import select

from relaybot.app.digest import send_digests
from relaybot.app.runner import run_scheduled
from relaybot.cli.documents import event_document
from relaybot.club.errors import AdminError
from relaybot.club.new_games import GameInput, create_game
from relaybot.club.rating_book import RatingInput, rating_row, ratings_json, set_rating
from relaybot.club.tournaments import (
    EventInput,
    create_event,
    event_standings,
    find_event,
    salon_secretaries,
)
from relaybot.config import Config
from relaybot.core.game import Outcome
from relaybot.games import rules_for
from relaybot.pipeline.effects import emit_all
from relaybot.pipeline.lifecycle import game_over, load_game, start_mails
from relaybot.pipeline.td import run_commands
from relaybot.store.db import Store
from relaybot.store.models import Game, Leave, Member, Outbox
from tests.integration.test_member_ratings import T0, finish, member
from tests.integration.test_store import cfg_for

pytestmark = pytest.mark.integration


def go_game(s: object, cfg: Config, black: str, white: str, *options: tuple[str, str],
            **kw: object) -> Game:
    """A go game of ``black`` (side 0) against ``white``."""
    return create_game(s, cfg, GameInput(white=white, black=black,  # type: ignore[arg-type]
                                         kind="go", options=options, **kw), T0)  # type: ignore[arg-type]


def test_section2_winner_plus_one_loser_minus_one_jigo_counted_void_nothing(
        store: Store, db_url: str) -> None:
    """R4, seed 004 section 2: 「勝者の新しい持点=対局前の持点+1」「敗者…−1」「持碁の時の新持点=
    対局前の持点のまま(対戦数にカウントされます)」「勝負なしの場合:対局前の持点のまま(対戦数に
    カウントされません)」; the TD's ``adjudicate ID void`` / ``勝負なし``."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        kuro = member(s, cfg, "kuro@example.jp", rating=115, game="go")
        shiro = member(s, cfg, "shiro@example.jp", rating=125, game="go")
        assert finish(s, go_game(s, cfg, kuro.email, shiro.email), "B+5.5")
        assert finish(s, go_game(s, cfg, kuro.email, shiro.email), "jigo")
        voided = [go_game(s, cfg, kuro.email, shiro.email) for _ in range(2)]
        s.flush()
        said = run_commands(s, cfg, f"adjudicate {voided[0].id} void\n"
                                    f"裁定 {voided[1].id} 勝負なし", T0)
        assert [g.result for g in voided] == ["Void", "Void"], said
        assert [g.status for g in voided] == ["finished", "finished"]
        go = ratings_json(s, kuro)["go"]
        assert (go["rating"], go["counted"], go["games"]) == (116, 2, 2)
        assert (go["wins"], go["losses"], go["draws"]) == (1, 0, 1)
        other = ratings_json(s, shiro)["go"]
        assert (other["rating"], other["counted"], other["losses"]) == (124, 2, 1)


def test_section2_free_games_count_as_games_not_in_the_rate(store: Store, db_url: str) -> None:
    """R4, seed 004 section 2: 「カウント外の自由対局:対局前の持点のまま(対戦数にはカウントします
    が、勝率にはカウントしません)」 (7 stones or more, 9x9 and 13x13, unrecorded)."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        kuro = member(s, cfg, "kuro@example.jp", rating=90, game="go")
        shiro = member(s, cfg, "shiro@example.jp", rating=170, game="go")
        for options in ((("size", "9"),), (("handicap", "7"),), (("free", "yes"),)):
            finish(s, go_game(s, cfg, kuro.email, shiro.email, *options), "B+R")
        go = ratings_json(s, kuro)["go"]
        assert (go["rating"], go["games"], go["counted"], go["win_rate"]) == (90, 3, 0, None)


def test_section2_rank_follows_the_win_rate_gates(store: Store, db_url: str) -> None:
    """R4, seed 004 section 2: 「昇級は勝率0.65以上、降級は勝率0.35以下とする」: 120 (1k) wins to
    121 (1d); a loss back to 120 leaves the win rate at 0.5 and the rank at 1d."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        kuro = member(s, cfg, "kuro@example.jp", rating=120, game="go")
        shiro = member(s, cfg, "shiro@example.jp", rating=120, game="go")
        assert finish(s, go_game(s, cfg, kuro.email, shiro.email), "B+2.5")
        assert ratings_json(s, kuro)["go"]["rank"] == "1d"
        assert ratings_json(s, shiro)["go"]["rank"] == "1k"  # 119 is 1k anyway
        assert finish(s, go_game(s, cfg, kuro.email, shiro.email), "W+R")
        go = ratings_json(s, kuro)["go"]
        assert (go["rating"], go["rank"], go["win_rate"]) == (120, "1d", 0.5)


def test_section3_provisional_until_the_chair_sets_official_points(
        store: Store, db_url: str) -> None:
    """R4, seed 004 section 3: 「公認持点は、対戦数10局以上を目安に、チェアーパーソン(眞鍋)が識者
    に相談の上決定します。」 A declared rank's points are provisional; at 10 counted games the
    TD is told once (record, win rate, implied points); ``member set --rating`` makes them
    official."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        kuro = member(s, cfg, "kuro@example.jp", rank="1k")  # the band's middle: 115
        shiro = member(s, cfg, "shiro@example.jp", rating=130, game="go")
        set_rating(s, shiro, RatingInput("go", 130, provisional=False))  # the chair's
        assert ratings_json(s, kuro)["go"]["official"] is False
        for n in range(11):
            game = go_game(s, cfg, kuro.email, shiro.email)
            s.flush()
            gf = load_game(s, game, T0)
            game.ply_count = 2
            winner = 0 if n % 3 else 1  # Black (kuro) wins two of three
            emit_all(s, cfg, game_over(s, cfg, gf, Outcome("counted", winner, margin=2.5),
                                       T0.date(), T0), T0)
        told = s.scalars(select(Outbox).where(Outbox.kind == "td_go_points")).all()
        assert len(told) == 1  # once, though 11 games were counted
        text = told[0].raw.decode("utf-8", "replace")
        assert "kuro@example.jp" in text
        assert rating_row(s, kuro.id, "go").told_td  # type: ignore[union-attr]
        set_rating(s, kuro, RatingInput("go", 118, provisional=False))
        go = ratings_json(s, kuro)["go"]
        assert (go["rating"], go["official"], go["counted"]) == (118, True, 11)


def test_section2_unknown_strength_gets_no_automatic_handicap(
        store: Store, db_url: str) -> None:
    """R4, seed 004 section 2: 「棋力が不明の会員および9級以下の初心者の段級位/持点は、初期値を
    「0」とし、対戦実績から、事務局で定める。」 ``--handicap auto`` refuses, in one line; the
    players agree terms instead (section 1: 対局者同士で合意された場合は、自由に対局条件を設定)."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        beginner = member(s, cfg, "shoshin@example.jp", rank="12k")
        dan = member(s, cfg, "yudansha@example.jp", rating=125, game="go")
        with pytest.raises(AdminError, match="no go points yet") as refused:
            go_game(s, cfg, beginner.email, dan.email, ("handicap", "auto"))
        assert "\n" not in str(refused.value) and "--handicap N --komi K" in str(refused.value)
        agreed = go_game(s, cfg, beginner.email, dan.email, ("handicap", "6"), ("komi", "0"))
        assert agreed.status == "active"


def test_section7_go_is_never_lost_on_time(store: Store, db_url: str) -> None:
    """R4, seed 004 section 7: 「持ち時間を決めることが出来るが、あくまで進行管理の参考のためとし、
    時間切れ負け等の扱いはしない。」 A go game on bank:20 silent for 40 days: reminders and
    the TD's escalation, never W+T."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        kuro = member(s, cfg, "kuro@example.jp", rating=100, game="go")
        shiro = member(s, cfg, "shiro@example.jp", rating=100, game="go")
        game = create_game(s, cfg, GameInput(white=shiro.email, black=kuro.email, kind="go",
                                             time_control="bank:20"), T0)
        start_mails(s, cfg, game, T0)
        game_id = game.id
    for days in (11, 21, 41):
        run_scheduled(store, cfg, T0 + timedelta(days=days))
    with store.session() as s:
        game = s.get(Game, game_id)
        assert game is not None and (game.status, game.result) == ("active", None)
        kinds = set(s.scalars(select(Outbox.kind).where(Outbox.game_id == game_id)))
        assert {"reminder", "td_silence"} <= kinds


def test_section4_even_game_toss_said_in_the_start_mail(store: Store, db_url: str) -> None:
    """R4, seed 004 section 4: 「互い先の場合の先手後手は電子トス(*)あるいは対戦者の話し合いで
    決める。」「時刻の末尾数字で、偶奇を判定します。」 Equal points: the toss gives Black and
    the start mail says how; without the toss the operator's colours stay."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        kuro = member(s, cfg, "kuro@example.jp", rating=100, game="go")
        shiro = member(s, cfg, "shiro@example.jp", rating=100, game="go")
        at_odd = T0 + timedelta(seconds=7)  # odd last digit (半): the second named
        game = create_game(s, cfg, GameInput(white=shiro.email, black=kuro.email, kind="go",
                                             options=(("handicap", "auto"),), toss=True),
                           at_odd)
        black = s.get(Member, game.side0_id)
        assert black is not None and black.email == shiro.email
        start_mails(s, cfg, game, at_odd)
        raw = b"\n".join(s.scalars(select(Outbox.raw).where(Outbox.game_id == game.id)))
        assert "電子トス".encode() in raw or b"electronic toss" in raw
        kept = create_game(s, cfg, GameInput(white=shiro.email, black=kuro.email, kind="go",
                                             options=(("handicap", "auto"),)), at_odd)
        assert kept.side0_id == kuro.id  # --black as given


def _end(s: object, cfg: Config, game: Game, result: str, now: datetime) -> None:
    """End a game with play as the TD's word ``result`` says (its mails queued)."""
    gf = load_game(s, game, now)  # type: ignore[arg-type]
    outcome = gf.rules.parse_result(result, "adjudication")
    assert outcome is not None
    game.ply_count = 2
    emit_all(s, cfg, game_over(s, cfg, gf, outcome, now.date(), now), now)  # type: ignore[arg-type]


def test_section5_points_tiebreak_frozen_at_the_leagues_end(store: Store, db_url: str) -> None:
    """T4, seed 004 section 5: 「(4)3人以上が同点の場合は持ち点の高い方を上位にする。」 read as
    the points stood when the league ended; later games change nothing in its order.
    「(5)不戦勝、不戦敗は順位の算定には加えるが、次期の持点には反映させない。」"""
    cfg = cfg_for(db_url)
    with store.session() as s:
        a, b, c = (member(s, cfg, f"{n}@example.jp", rating=p, game="go")
                   for n, p in (("a", 110), ("b", 108), ("c", 106)))
        games = create_event(s, cfg, EventInput("秋の碁会所リーグ", "salon",
                                                [a.email, b.email, c.email]), T0)
        # a cycle: each wins once by 5.5 and loses once by 5.5: the points decide
        by_pair = {frozenset((g.side0_id, g.side1_id)): g for g in games}
        later = T0 + timedelta(days=30)
        for winner, loser in ((a, b), (b, c), (c, a)):
            game = by_pair[frozenset((winner.id, loser.id))]
            side = 0 if game.side0_id == winner.id else 1
            _end(s, cfg, game, f"{'BW'[side]}+5.5", later)
        event = find_event(s, "秋の碁会所リーグ")
        first = [row.player for row in event_standings(s, event)]
        assert first == [a.name, b.name, c.name]
        # after the league, c beats a three times: now c 109, b 108, a 107
        for _ in range(3):
            _end(s, cfg, create_game(s, cfg, GameInput(white=a.email, black=c.email,
                                                       kind="go"), later), "B+R",
                 later + timedelta(days=10))
        assert [ratings_json(s, m)["go"]["rating"] for m in (a, b, c)] == [107, 108, 109]
        assert [row.player for row in event_standings(s, event)] == first
        shown = event_document(s, event)
        assert [r["email"] for r in shown["standings"]] == [a.email, b.email, c.email]
        assert [r["points"] for r in shown["standings"]] == [110, 108, 106]


def test_section5_forfeits_count_in_the_standings_not_in_the_points(
        store: Store, db_url: str) -> None:
    """T4, seed 004 section 5: 「(5)不戦勝、不戦敗は順位の算定には加えるが、次期の持点には反映
    させない。」"""
    cfg = cfg_for(db_url)
    with store.session() as s:
        a, b = (member(s, cfg, f"{n}@example.jp", rating=100, game="go") for n in "ab")
        games = create_event(s, cfg, EventInput("forfeits", "salon", [a.email, b.email]), T0)
        run_commands(s, cfg, f"forfeit {games[0].id} white", T0)
        rows = event_standings(s, find_event(s, "forfeits"))
        assert [(r.points, r.games) for r in rows] == [(1.0, 1), (0.0, 1)]
        assert {ratings_json(s, m)["go"]["rating"] for m in (a, b)} == {100}


def test_section6_secretaries_named_at_the_leagues_end(store: Store, db_url: str) -> None:
    """T4, seed 004 section 6: 「公式戦の幹事は2名とし、前回のリーグ戦の優勝者とブービーの者が
    これにあたる。ただし、70歳以上の者はとくに本人が希望する場合を除き免除される。」 The winner
    (born 1950: 76 when the league ends) is excused, the second serves; the booby serves;
    every player's end mail names them."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        players = [member(s, cfg, f"p{n}@example.jp", rating=100 + n, game="go",
                          born=1950 if n == 0 else 1980) for n in range(4)]
        games = create_event(s, cfg, EventInput("春の碁会所リーグ", "salon",
                                                [m.email for m in players]), T0)
        event = find_event(s, "春の碁会所リーグ")
        rank = {m.id: n for n, m in enumerate(players)}  # p0 beats all, p1 beats p2, p3...
        for game in games:
            assert salon_secretaries(s, event) is None  # not yet ended
            side = 0 if rank[game.side0_id] < rank[game.side1_id] else 1
            _end(s, cfg, game, f"{'BW'[side]}+3.5", T0 + timedelta(days=40))
        chosen = salon_secretaries(s, event)
        assert [m.email for m in chosen or ()] == ["p1@example.jp", "p2@example.jp"]
        assert event_document(s, event)["secretaries"] == ["p1@example.jp", "p2@example.jp"]
        ended = s.scalars(select(Outbox).where(Outbox.kind == "salon_end")).all()
        assert sorted(o.recipient for o in ended) == [m.email for m in players]
        players[0].serves = 1  # the winner asks to serve
        assert [m.email for m in salon_secretaries(s, event) or ()] == [
            "p0@example.jp", "p2@example.jp"]


def test_section2_a_corrected_result_recounts_points_record_and_rank(
        store: Store, db_url: str) -> None:
    """R4, seed 004 section 2: a TD's corrected result (``result ID RESULT``) replays the
    points, the record in the count and the rank; a result corrected to 勝負なし leaves the
    game out of the count."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        kuro = member(s, cfg, "kuro@example.jp", rating=120, game="go")
        shiro = member(s, cfg, "shiro@example.jp", rating=120, game="go")
        first = go_game(s, cfg, kuro.email, shiro.email)
        _end(s, cfg, first, "B+2.5", T0)
        assert ratings_json(s, kuro)["go"]["rank"] == "1d"  # 121 with 1.0
        second = go_game(s, cfg, kuro.email, shiro.email)
        _end(s, cfg, second, "B+0.5", T0 + timedelta(days=1))
        run_commands(s, cfg, f"result {first.id} W+R", T0 + timedelta(days=2))
        go = ratings_json(s, kuro)["go"]
        # 119 (1k, 0 of 1) then 120 (1k, 0.5): the rank never went up
        assert (go["rating"], go["wins"], go["losses"], go["rank"]) == (120, 1, 1, "1k")
        run_commands(s, cfg, f"result {first.id} void", T0 + timedelta(days=3))
        go = ratings_json(s, kuro)["go"]
        assert (go["rating"], go["counted"], go["wins"], go["rank"]) == (121, 1, 1, "1d")


@pytest.mark.parametrize("td_lang", ["en", "ja"])
def test_section2_a_corrected_result_calls_the_points_salon_points_not_a_rating(
        store: Store, db_url: str, td_lang: str) -> None:
    """R4, seed 004 section 1: 「会員に持点を与え、手合い割(対局条件)は持点差により定めます。」
    A go player's number is the salon's points (持点), never a rating: the TD's result
    report (how to correct it) and each player's corrected-result mail say what a
    correction works out again in those words, in the reader's language."""
    cfg = cfg_for(db_url)
    cfg = dataclasses.replace(cfg, bot=dataclasses.replace(cfg.bot, language=td_lang))
    with store.session() as s:
        kuro = member(s, cfg, "kuro@example.jp", rating=120, game="go", lang="ja")
        shiro = member(s, cfg, "shiro@example.jp", rating=120, game="go", lang="en")
        game = go_game(s, cfg, kuro.email, shiro.email)
        _end(s, cfg, game, "B+2.5", T0)
        run_commands(s, cfg, f"result {game.id} W+R", T0 + timedelta(days=1))
        texts = {(o.kind, o.recipient): _body(o.raw).replace("\r\n", "\n") for o in s.scalars(
            select(Outbox).where(Outbox.kind.in_(("td_result", "result_corrected"))))}
    # the prose, before the record it quotes (SGF); the points bracketed while provisional
    prose = {key: text.split("\n\n(;")[0] for key, text in texts.items()}
    report = texts[("td_result", cfg.bot.td)]  # how to correct it follows the record
    ja, en = (prose[("result_corrected", who)] for who in (kuro.email, shiro.email))
    assert "持点を両者とも計算し直しました。あなたの持点（囲碁）は (119) 1級 です" in ja, ja
    assert "Both players' salon points have been worked out again from this game on. " \
           "Your salon points (go) are now (121) 1d (they were (119) 1k before the correction)." \
        "\nThe event's standings" in en, en
    assert "レーティング" not in ja and "rating" not in en.lower() and "re-rated" not in en
    if td_lang == "ja":
        assert "（両者の持点を計算し直します）" in report and "レーティング" not in report
    else:
        assert "(both players' salon points are worked out again)" in report, report
        assert "rating" not in report.lower() and "re-rated" not in report


def test_section2_the_digest_shows_points_and_rank_in_the_readers_words(
        store: Store, db_url: str) -> None:
    """R4, seed 004 section 2: the weekly digest shows a go member's points with the rank
    held (初段 / 1級 in Japanese), provisional points in parentheses (section 3)."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        kuro = member(s, cfg, "kuro@example.jp", rating=120, game="go", lang="ja")
        shiro = member(s, cfg, "shiro@example.jp", rank="1d", lang="en")
        set_rating(s, kuro, RatingInput("go", 120, provisional=False))
        _end(s, cfg, go_game(s, cfg, kuro.email, shiro.email), "B+3.5", T0)
    send_digests(store, cfg, T0 + timedelta(days=2))
    with store.session() as s:
        texts = {o.recipient: o.raw for o in s.scalars(select(Outbox).where(
            Outbox.kind == "digest"))}
    ja = _body(texts["kuro@example.jp"])
    en = _body(texts["shiro@example.jp"])
    assert "120 1級 → 121 初段" in ja, ja
    assert "(125) 1d -> (124) 1d" in en, en


def _body(raw: bytes) -> str:
    msg = email.message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def test_section3_the_chair_sets_official_points_by_mail_command(
        store: Store, db_url: str) -> None:
    """R4, seed 004 section 3: 「公認持点は、対戦数10局以上を目安に、チェアーパーソン(眞鍋)が
    識者に相談の上決定します。」 the club's TD replies ``持点 ADDR N`` (``points ADDR N``);
    an event's own TD may not."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        kuro = member(s, cfg, "kuro@example.jp", rank="3k")
        done = run_commands(s, cfg, "持点 kuro@example.jp 104", T0, td=cfg.bot.td)
        assert done[0].ok and "二" not in done[0].said.ja and "2級" in done[0].said.ja
        go = ratings_json(s, kuro)["go"]
        assert (go["rating"], go["official"], go["rank"]) == (104, True, "2k")
        refused = run_commands(s, cfg, "points kuro@example.jp 90", T0, td="other@example.jp")
        assert not refused[0].ok and ratings_json(s, kuro)["go"]["rating"] == 104
        assert not run_commands(s, cfg, "points kuro@example.jp many", T0)[0].ok


def test_section2_a_game_either_player_keeps_unrecorded_is_free(
        store: Store, db_url: str) -> None:
    """R4, seed 004 section 2: 「対局者の意志による記録外対局(白、黒片方のみでもよい)」: at
    one player's wish the TD marks the game ``記録外 ID`` (``free ID``): played, not in the
    points or the win rate; a finished game is re-rated."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        kuro = member(s, cfg, "kuro@example.jp", rating=100, game="go")
        shiro = member(s, cfg, "shiro@example.jp", rating=100, game="go")
        game = go_game(s, cfg, kuro.email, shiro.email)
        _end(s, cfg, game, "B+6.5", T0)
        assert ratings_json(s, kuro)["go"]["rating"] == 101
        done = run_commands(s, cfg, f"記録外 {game.id}", T0 + timedelta(days=1))
        assert done[0].ok, done[0].said
        go = ratings_json(s, kuro)["go"]
        assert (go["rating"], go["counted"], go["games"]) == (100, 0, 1)
        assert not run_commands(s, cfg, f"free {game.id}", T0)[0].ok  # already free
        active = go_game(s, cfg, kuro.email, shiro.email)
        s.flush()
        assert run_commands(s, cfg, f"free {active.id}", T0)[0].ok
        _end(s, cfg, active, "W+R", T0 + timedelta(days=2))
        assert ratings_json(s, kuro)["go"]["rating"] == 100


def test_section2_either_player_makes_the_game_free_by_mail(store: Store, db_url: str) -> None:
    """R4, seed 004 section 2: 「対局者の意志による記録外対局(白、黒片方のみでもよい)」 White,
    not to move, writes 記録外 alone on a line: the game becomes a free game (points and win
    rate untouched), both players are told, and play goes on."""
    from relaybot.app.service import Arrival, process_mail
    from relaybot.mail.queue import Recipient
    from relaybot.pipeline.effects import reply_address

    cfg = cfg_for(db_url)
    with store.session() as s:
        kuro = member(s, cfg, "kuro2@example.jp", rating=100, game="go")
        shiro = member(s, cfg, "shiro2@example.jp", rating=100, game="go")
        game = create_game(s, cfg, GameInput(white=shiro.email, black=kuro.email, kind="go"),
                           T0)
        start_mails(s, cfg, game, T0)
        game_id, to = game.id, reply_address(
            cfg, Recipient(shiro.name, shiro.email, shiro.id), game.id)
        assert not rules_for("go").free_game(game.position)
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "shiro2@example.jp", to, f"Re: [{game_id}]"
    msg["Message-ID"] = "<free1@example.jp>"
    msg.set_content("よろしくお願いします。\n記録外\n")
    when = T0 + timedelta(days=1)
    assert process_mail(store, cfg, Arrival(msg.as_bytes(), when, "INBOX", 1, 1),
                        when) == "declared"
    with store.session() as s:
        game = s.get(Game, game_id)
        assert game is not None and game.status == "active"
        assert rules_for("go").free_game(game.position)
        told = {r.recipient: r.raw for r in s.scalars(select(Outbox).where(
            Outbox.game_id == game_id, Outbox.kind == "declared"))}
    assert set(told) == {"kuro2@example.jp", "shiro2@example.jp"}  # opponent, and the ack
    for raw in told.values():
        said = email.message_from_bytes(raw, policy=policy.default)
        assert isinstance(said, EmailMessage)
        part = said.get_body(preferencelist=("plain",))
        text = part.get_content() if part is not None else ""
        assert "free game (unrecorded)" in text or "記録外の対局" in text, text
    # a second time: it is free already, said plainly, nothing changes
    msg.replace_header("Message-ID", "<free2@example.jp>")
    again = process_mail(store, cfg, Arrival(msg.as_bytes(), when, "INBOX", 1, 2), when)
    assert again == "bad_move"


def test_section3_a_chair_who_plays_decides_nothing_of_their_own(
        store: Store, db_url: str) -> None:
    """Seed 004 section 3 (the chair decides official points, section 2 free games) with a
    chair who also plays in the salon: their own points, their own game made free, and a
    withdrawal that would win them a game are refused by mail and keep nothing changed; the
    operator at the command line (no TD) decides them."""
    cfg = cfg_for(db_url)
    chair = cfg.bot.td.strip().lower()
    with store.session() as s:
        me = member(s, cfg, chair, rating=100, game="go")
        member(s, cfg, "kuro@example.jp", rating=100, game="go")
        game = go_game(s, cfg, "kuro@example.jp", chair)
        done = run_commands(s, cfg, f"points {chair} 150\nfree {game.id}\n"
                            "withdraw kuro@example.jp lost", T0, td=chair)
        assert [d.ok for d in done] == [False, False, False]
        assert "about you" in done[0].message
        assert all(f"game {game.id} is one you play in" in d.message for d in done[1:])
        mine = rating_row(s, me.id, "go")
        assert mine is not None and mine.rating == 100
        assert game.status == "active" and not rules_for("go").free_game(game.position)
        by_operator = run_commands(s, cfg, f"points {chair} 150\nfree {game.id}", T0)
        assert [d.ok for d in by_operator] == [True, True]
        # J12: a leave past the yearly days waits for the TD, who may not approve their own
        leave = Leave(member_id=me.id, first=T0.date() + timedelta(days=40),
                      last=T0.date() + timedelta(days=45), status="pending", announced_at=T0)
        s.add(leave)
        s.flush()
        [own_leave] = run_commands(s, cfg, f"approve leave {leave.id}", T0, td=chair)
        assert not own_leave.ok and "about you" in own_leave.message
        assert leave.status == "pending"

