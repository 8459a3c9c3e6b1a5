"""Issue 30 through the command line (in process, as ``relaybot`` runs it): the club's
books of seed 000. Each test is named after an item and quotes the seed."""

from __future__ import annotations

from pathlib import Path

import pytest

from relaybot.cli import main

pytestmark = pytest.mark.integration

A, B, C, D = "a@example.jp", "b@example.jp", "c@example.jp", "d@example.jp"
NOW = "2007-04-10T09:00:00+09:00"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    status = main(list(args))
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def fails(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    status = main(list(args))
    out, err = capsys.readouterr()
    assert status != 0, out
    return err


@pytest.fixture
def club(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> Path:
    for key in [k for k in __import__("os").environ if k.startswith("RELAYBOT_")]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    run(capsys, "init")
    for name, email in (("Hayakawa, Satoru", A), ("Horie, Takahiro", B),
                        ("Sakamoto, Taho", C), ("Onoda, Hirokazu", D)):
        run(capsys, "member", "add", "--name", name, "--email", email, "--now", NOW)
    return tmp_path


def test_members_kinds_renewal_and_family(club: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """年会費 (有効期間1年間) 3,000円; 家族会費 (有効期間は入会時期に関わらず本会員と同じ)
    1,500円; ジュニア会員は18歳の年度末までに入会・継続した1年を最終年度とします."""
    out = run(capsys, "member", "set", A, "--kind", "regular", "--paid-until", "2008-03-31")
    assert "membership: regular, valid until 2008-03-31" in out
    out = run(capsys, "member", "set", B, "--kind", "family", "--family-of", A)
    assert "family, valid until 2008-03-31" in out
    assert "needs --born" in fails(capsys, "member", "set", C, "--kind", "junior")
    run(capsys, "member", "set", C, "--kind", "junior", "--born", "1990")
    # 5000円送金して、3000円を年会費に充てた残余の2000円を20 pawnとしてデポジットする
    out = run(capsys, "member", "renew", A, "--yen", "5000", "--on", "2008-03-01",
              "--now", NOW)
    assert "valid until 2009-03-31; 20 pawns deposited" in out
    assert "family, valid until 2009-03-31" in run(capsys, "member", "set", B)
    run(capsys, "member", "renew", C, "--on", "2009-03-01")  # the last junior year
    assert "past the last junior year" in fails(capsys, "member", "renew", C,
                                                "--on", "2009-04-02")


def test_pawn_deposit_ledger_never_negative(club: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """1 pawn=100円(端数が生じた場合は切り捨て); 現金払出は一切認めません。退会時の残余
    pawn は没収します。"""
    run(capsys, "member", "pawns", A, "--add-yen", "2050", "--reason", "deposit", "--now", NOW)
    out = run(capsys, "member", "pawns", A, "--pay", "2", "--reason", "2-game match",
              "--now", NOW)
    assert "+20 (2050 yen)" in out and "-2\tpayment\t2-game match" in out
    assert "balance: 18 pawns" in out
    assert "never goes below zero" in fails(capsys, "member", "pawns", A, "--pay", "19",
                                            "--reason", "too much")
    assert "needs its --reason" in fails(capsys, "member", "pawns", A, "--add", "1")
    assert "18 pawns forfeited" in run(capsys, "member", "quit", A, "--now", NOW)
    assert "balance: 0 pawns" in run(capsys, "member", "pawns", A)


def test_entry_fees_from_pawns_juniors_half(club: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """予選Tは4人1組白黒各1局、全6局です。参加料は1組600円、ジュニア参加料は1組300円。"""
    run(capsys, "member", "set", C, "--kind", "junior", "--born", "1995")
    run(capsys, "member", "pawns", A, "--add", "10", "--reason", "deposit", "--now", NOW)
    out = run(capsys, "event", "new", "Prelim 1", "--kind", "group", "--fee", "600",
              "--players", ",".join((A, B, C, D)), "--start", "2007-04-10", "--now", NOW)
    assert f"not paid yet: {B} (600 yen), {C} (300 yen), {D} (600 yen)" in out
    run(capsys, "club", "paid", "Prelim 1", C)
    fees = run(capsys, "club", "fees", "Prelim 1")
    assert f"{A}\t600 yen\tpaid (pawns)" in fees and f"{C}\t300 yen\tpaid (yen)" in fees
    assert f"{B}\t600 yen\tNOT PAID" in fees
    assert "balance: 4 pawns" in run(capsys, "member", "pawns", A)


def test_tutorial_games_unrated_one_by_email(club: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """チュートリアル・ゲーム ... ゲームは中断され、最後にゲームの結果報告を経験して
    チュートリアル・ゲームは終了します; 郵便戦とEメール戦の各1回ずつ申込みできます。"""
    gid = run(capsys, "game", "new", "--white", A, "--black", B, "--tutorial",
              "--now", NOW).split()[0]
    assert "at most 1" in fails(capsys, "game", "new", "--white", C, "--black", B,
                                "--tutorial", "--tutor", C)
    assert "chess or shogi" in fails(capsys, "game", "new", "--white", C, "--black", D,
                                     "--tutorial", "--game", "go")
    assert "ended" in run(capsys, "club", "tutorial-end", gid, "--now", NOW)
    # the TD's command (by mail or at the command line) ends one as well
    other = run(capsys, "game", "new", "--white", C, "--black", D, "--game", "shogi",
                "--tutorial", "--now", NOW).split()[0]
    run(capsys, "td", "tutorial-end", other, "--now", NOW)
    import json

    for game_id in (gid, other):
        shown = json.loads(run(capsys, "game", "show", game_id, "--json"))
        assert shown["state"] == "finished" and shown["event"] is None
    ratings = json.loads(run(capsys, "member", "show", B, "--json"))["ratings"]
    assert ratings["chess"]["rated_games"] == 0 and ratings["chess"]["rating"] == 1200


def test_ladder_challenge_names_a_higher_player(club: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """<梯子段 1-game match> ... 挑戦する上位者を指名して申込みください。"""
    run(capsys, "club", "ladder", "--set", f"{A},{B},{C}")
    assert "higher player" in fails(capsys, "event", "new", "L0", "--kind", "ladder",
                                    "--players", f"{A},{C}")
    out = run(capsys, "event", "new", "L1", "--kind", "ladder", "--players", f"{C},{A}",
              "--now", NOW)
    gid = out.splitlines()[1].split()[0]
    run(capsys, "td", "adjudicate", gid, "1-0" if _white_is(capsys, gid, C) else "0-1",
        "--now", NOW)
    assert "challenger wins" in run(capsys, "club", "settle", "--now", NOW)
    ladder = run(capsys, "club", "ladder")
    assert ladder.index(C) < ladder.index(A) < ladder.index(B)


def _white_is(capsys: pytest.CaptureFixture[str], gid: str, email: str) -> bool:
    import json

    games = json.loads(run(capsys, "game", "list", "--json"))
    return next(g for g in games if g["id"] == gid)["white"] == email


def test_club_report_prizes_and_award(club: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """2007年1月以降開始の予選トーナメントに6 pawnのプライズを付けます; 年間最多対局賞."""
    run(capsys, "event", "new", "Prelim 2", "--kind", "group", "--players",
              ",".join((A, B, C, D)), "--start", "2007-04-10", "--now", NOW)
    import json

    for g in json.loads(run(capsys, "game", "list", "--json")):
        # A wins every game; the rest are drawn
        result = ("1-0" if g["white"] == A else "0-1" if g["black"] == A else "1/2-1/2")
        run(capsys, "td", "adjudicate", g["id"], result, "--now", "2007-09-01T09:00:00+09:00")
    settled = run(capsys, "club", "settle", "--now", "2008-04-02T09:00:00+09:00")
    assert f"prize Prelim 2: {A} 6 pawns" in settled
    assert "most games 2007" in settled and "6 games" in settled
    text = run(capsys, "club", "report", "--year", "2007", "--lang", "ja",
               "--now", "2008-04-02T09:00:00+09:00")
    assert "トーナメント・プライズ" in text and "年間最多対局賞" in text
    csv = run(capsys, "club", "report", "--year", "2007", "--format", "csv",
              "--now", "2008-04-02T09:00:00+09:00")
    assert f"prize,Prelim 2,{A},6 pawns" in csv


def test_ladder_two_game_match_opponents_by_wish(club: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """<2-game match> ... 対戦相手のレイティングに希望がある場合は〔≦1800 (1800以下の方)〕
    〔≧1500 (1500以上の方)〕 (言葉でもOK)などと明記して申込みください。"""
    for email, rating in ((B, "1850"), (C, "1700"), (D, "1400")):
        run(capsys, "member", "set", email, "--rating", rating)
    out = run(capsys, "club", "opponents", A, "--wish", "≧1500, ≦1800")
    assert out.split()[0] == C and B not in out and D not in out
    assert "--wish" in fails(capsys, "club", "opponents", A, "--wish", "strong")


def test_members_show_the_books_line(club: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """会員になると ... 年会費 (有効期間1年間) 3,000円: member show says the kind, the expiry
    and the pawns."""
    run(capsys, "member", "set", A, "--kind", "regular", "--paid-until", "2008-03-31")
    run(capsys, "member", "pawns", A, "--add", "3", "--reason", "prize money by hand")
    assert "membership: regular, valid until 2008-03-31; pawns: 3" in run(
        capsys, "member", "show", A)
    import json

    run(capsys, "member", "set", B, "--kind", "family", "--family-of", A)
    shown = json.loads(run(capsys, "member", "show", B, "--json"))
    assert shown["membership"] == {"kind": "family", "family_of": A, "born": None,
                                   "valid_until": "2008-03-31", "left_on": None}
    assert shown["pawns"] == 0


def test_ladder_shown_on_the_web_without_addresses(club: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """公式サイトやニュースレターに掲載される郵便戦梯子段・Eメール戦梯子段を参考に; no money
    and no address on the web pages (issue 30)."""
    from starlette.testclient import TestClient

    from relaybot.config import load_config
    from relaybot.store.db import Store
    from relaybot.web import create_app

    run(capsys, "club", "ladder", "--set", f"{B},{A}")
    run(capsys, "member", "pawns", A, "--add", "7", "--reason", "deposit")
    cfg = load_config()
    store = Store.open(cfg.database.url)
    try:
        client = TestClient(create_app(cfg, store))
        page = client.get("/ladder/chess?lang=ja").text
        assert "チェスの梯子段" in page
        assert page.index("Horie") < page.index("Hayakawa")  # top first
        assert "@" not in page.replace("&#64;", "@").split("<body")[-1]
        assert "pawn" not in page.lower()
        assert client.get("/ladder/shogi").status_code == 404
    finally:
        store.dispose()


def test_a_ladder_is_found_from_the_front_page_and_from_a_challenge(
        club: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30: members reach the ladder's page without knowing its address: the front
    page lists each game's ladder, and a challenge's event page links the ladder it is
    played on, in both languages."""
    from urllib.parse import quote

    from starlette.testclient import TestClient

    from relaybot.config import load_config
    from relaybot.store.db import Store
    from relaybot.web import create_app

    run(capsys, "club", "ladder", "--set", f"{B},{A}")
    run(capsys, "event", "new", "Challenge 1", "--kind", "ladder", "--players", f"{C},{A}",
        "--start", "2007-09-01", "--now", NOW)
    cfg = load_config()
    store = Store.open(cfg.database.url)
    try:
        client = TestClient(create_app(cfg, store))
        home = client.get("/?lang=en").text
        assert '<a href="/ladder/chess">The chess ladder</a>' in home
        assert '<a href="/ladder/chess">チェスの梯子段</a>' in client.get("/?lang=ja").text
        assert "/ladder/shogi" not in home  # no shogi ladder: no link to a missing page
        event = client.get("/events/" + quote("Challenge 1") + "?lang=en").text
        assert 'A challenge on the <a href="/ladder/chess">chess ladder</a>' in event
        ja = client.get("/events/" + quote("Challenge 1") + "?lang=ja").text
        assert '<a href="/ladder/chess">チェスの梯子段</a>の挑戦です。' in ja
        assert client.get("/ladder/chess").status_code == 200
    finally:
        store.dispose()
