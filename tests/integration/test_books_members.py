"""Issue 30 (seed 000): the tutor's own keyword through the real Dovecot, and the books'
memberships as the weekly digest sees them: a family membership that follows the
regular member's, a junior's last year, the report's members of the year and one year
of birth. The command line runs in process (``main``), the mail through Dovecot and the
SMTP sink; each test is named after an item and quotes the seed."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from typing import Protocol

import pytest
from sqlalchemy import select

from relaybot.cli import main
from relaybot.store.models import Game, RatingChange
from tests.integration.relay_harness import TD, Club, Player, body_of

pytestmark = pytest.mark.integration


class Cli(Protocol):
    def __call__(self, *args: str, ok: bool = True) -> str: ...


@pytest.fixture
def cli(club: Club, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> Cli:
    """``relaybot ARGS`` in process against the club: its stdout (exit 0 asserted)."""
    for key in [k for k in os.environ if k.startswith("RELAYBOT_")]:
        monkeypatch.delenv(key)
    for key, value in club.env().items():
        if key.startswith("RELAYBOT_"):
            monkeypatch.setenv(key, value)
    monkeypatch.chdir(club.workdir)
    (club.workdir / "relaybot.toml").touch()

    def run(*args: str, ok: bool = True) -> str:
        status = main(list(args))
        out, err = capsys.readouterr()
        assert (status == 0) == ok, (args, out, err)
        return out if ok else err
    return run


def at(day: str, hour: int = 1) -> datetime:
    return datetime.fromisoformat(day).replace(hour=hour, tzinfo=UTC)


def kinds_to(club: Club, address: str, kind: str) -> list[str]:
    return [body_of(c) for c in club.mails_to(address) if c.parsed["X-Relaybot-Kind"] == kind]


def test_tutorial_games_ended_by_the_tutor_by_mail(club: Club, cli: Cli) -> None:
    """チュートリアル・ゲーム: ゲーム進行に関する疑問点がなくなったとチューターが判断した
    ところでゲームは中断され、最後にゲームの結果報告を経験してチュートリアル・ゲームは
    終了します. The tutor (not the TD) ends it by a keyword in their own mail, with the
    result to report; the pupil cannot; nothing is rated."""
    club.clock = at("2026-03-02")
    tutor = club.member("Hashizume, Shuji", "tutor@example.jp")
    pupil = club.member("Yamada, Taro", "pupil@example.jp", lang="ja")
    gid = cli("game", "new", "--white", tutor.address, "--black", pupil.address,
              "--tutorial", "--now", club.clock.isoformat()).split()[0]
    club.cycle()
    tutor.send("1. e4", to=tutor.game_address(gid), subject=f"[{gid}]")
    club.cycle()
    pupil.send("1. e4 e5", to=pupil.game_address(gid), subject=f"[{gid}]")
    club.cycle()

    # the pupil's own "指導終了" (authenticated: the game's token) ends nothing
    pupil.send("ありがとうございました。\n指導終了", to=pupil.game_address(gid),
               subject=f"[{gid}]")
    assert club.cycle().poll.outcomes == {"tutorial_end_refused": 1}
    refusal = kinds_to(club, pupil.address, "error_tutorial_end")
    assert len(refusal) == 1 and "チュートリアル・ゲームを終えるのはチューターです" in refusal[0]
    with club.store.session() as session:
        game = session.get(Game, gid)
        assert game is not None and game.status == "active"

    # the tutor's move and "tutorial end 1-0" in one mail: the move is relayed, then the
    # game ends with the result report to both players and the TD
    tutor.send("1. e4 e5 2. Nf3\nWell played, no more questions.\ntutorial end 1-0",
               to=tutor.game_address(gid), subject=f"[{gid}]")
    club.cycle()
    shown = json.loads(cli("game", "show", gid, "--json"))
    assert shown["state"] == "finished" and shown["result"] == "1-0"
    ended = kinds_to(club, pupil.address, "game_end")
    assert len(ended) == 1 and "2. Nf3" in ended[0]
    assert kinds_to(club, tutor.address, "game_end")
    assert any(gid in r for r in kinds_to(club, TD, "td_result"))
    with club.store.session() as session:  # practice: never rated
        assert session.scalars(select(RatingChange).where(
            RatingChange.game_id == gid)).first() is None

    # a game that is no tutorial: the keyword is refused, the game goes on
    other = club.member("Otake, Sakae", "otake@example.jp")
    plain = club.game(tutor, other)
    tutor.send("1. d4\ntutorial end", to=tutor.game_address(plain), subject=f"[{plain}]")
    club.cycle()
    assert json.loads(cli("game", "show", plain, "--json"))["state"] == "active"
    assert any("is not a tutorial game" in b
               for b in kinds_to(club, tutor.address, "error_tutorial_end"))


def _digests(club: Club, who: Player) -> list[str]:
    return kinds_to(club, who.address, "digest")


def test_members_family_follows_the_regular_member(club: Club, cli: Cli) -> None:
    """家族会費 (有効期間は入会時期に関わらず本会員と同じ): a family member's membership
    lapses with the regular member's, and ends when the regular member leaves
    (退会); their digest stops (会費切れとなった場合は通知なくニュースレターの発送を停止)
    and the TD learns of each once."""
    club.clock = at("2025-06-02")
    a = club.member("Hayakawa, Satoru", "a@example.jp")
    b = club.member("Hayakawa, Yoko", "b@example.jp")
    c = club.member("Sakamoto, Ken", "c@example.jp")
    d = club.member("Sakamoto, Emi", "d@example.jp")
    cli("member", "set", a.address, "--kind", "regular", "--paid-until", "2025-06-30")
    cli("member", "set", b.address, "--kind", "family", "--family-of", a.address)
    cli("member", "set", c.address, "--kind", "regular", "--paid-until", "2026-03-31")
    cli("member", "set", d.address, "--kind", "family", "--family-of", c.address)
    club.game(d, b)  # D and B play: each has a game for the digest to speak of

    club.clock = at("2025-06-16")  # a Monday, two weeks before A's expiry
    club.cycle()
    assert "Your membership runs out on 2025-06-30" in _digests(club, b)[-1]
    assert "Your membership runs out" not in _digests(club, d)[-1]
    d_digests = len(_digests(club, d))
    # C leaves the club: D's family membership ends with C's
    cli("member", "quit", c.address, "--now", "2025-06-20T09:00:00+09:00")
    assert "membership: family, valid until 2025-06-20" in cli("member", "show", d.address)
    club.clock = at("2025-06-23")
    club.cycle()
    club.clock = at("2025-06-30")
    club.cycle()
    club.clock = at("2025-07-07")
    club.cycle()
    assert "Your membership ran out on 2025-06-30" in _digests(club, b)[-1]
    counts = (len(_digests(club, b)), len(_digests(club, d)))
    for day in ("2025-07-14", "2025-07-21"):
        club.clock = at(day)
        club.cycle()
    assert (len(_digests(club, b)), len(_digests(club, d))) == counts
    assert len(_digests(club, d)) == d_digests  # none since C left
    lapsed = [(str(m.parsed["Subject"]), body_of(m)) for m in club.mails_to(TD)
              if m.parsed["X-Relaybot-Kind"] == "td_lapsed"]
    about = {who: [body for subject, body in lapsed if subject.endswith(who)]
             for who in ("Satoru Hayakawa", "Yoko Hayakawa", "Emi Sakamoto", "Ken Sakamoto")}
    assert [len(v) for v in about.values()] == [1, 1, 1, 0], lapsed  # C: the TD did that
    assert "follows the membership of Satoru Hayakawa" in about["Yoko Hayakawa"][0]
    assert "Ken Sakamoto" in about["Emi Sakamoto"][0]
    assert "left the club" in about["Emi Sakamoto"][0]
    assert "--kind regular" in about["Emi Sakamoto"][0]
    # A renews: B's family membership follows at once
    cli("member", "renew", a.address, "--on", "2025-07-22", "--now", "2025-07-22T09:00:00+09:00")
    assert "family, valid until 2026-07-21" in cli("member", "show", b.address)
    assert "left the club" in cli("member", "renew", d.address, "--on", "2025-07-22",
                                  ok=False)


def test_members_junior_ends_with_the_last_junior_year(club: Club, cli: Cli) -> None:
    """ジュニア会員は18歳の年度末までに入会・継続した1年を最終年度とします: born 2007, 18
    in the fiscal year ending 31 March 2026; the year paid from 1 July 2025 began before
    it and is the last, so an expiry entered as 2027-06-30 ends on 2026-06-30 (the
    digest warns a month ahead, the membership lapses then), and no junior year may begin
    after the deadline."""
    club.clock = at("2026-05-25")
    j = club.member("Mori, Hiro", "j@example.jp")
    k = club.member("Onoda, Hiro", "k@example.jp")
    out = cli("member", "set", j.address, "--kind", "junior", "--born", "2007",
              "--paid-until", "2027-06-30")
    assert "membership: junior, valid until 2026-06-30" in out
    assert "past the last junior year" in cli("member", "renew", j.address, "--on",
                                              "2026-03-01", ok=False)
    club.game(j, k)
    club.clock = at("2026-06-01")  # a Monday within the month
    club.cycle()
    warned = _digests(club, j)[-1]
    assert "Your membership runs out on 2026-06-30" in warned
    assert "last year as a junior member" in warned
    for day in ("2026-07-06", "2026-07-13", "2026-07-20"):
        club.clock = at(day)
        club.cycle()
    count = len(_digests(club, j))
    club.clock = at("2026-07-27")
    club.cycle()
    assert len(_digests(club, j)) == count  # lapsed: no digest
    assert len([x for x in kinds_to(club, TD, "td_lapsed") if j.address in x]) == 1
    # renewed as a regular member, the membership runs on
    cli("member", "set", j.address, "--kind", "regular")
    out = cli("member", "renew", j.address, "--on", "2026-07-28")
    assert "regular membership paid (3000 yen), valid until 2027-07-27" in out


def test_club_report_counts_members_of_the_year(club: Club, cli: Cli) -> None:
    """会員の種別 of ``club report --year``: the members whose membership was valid on
    some day of that fiscal year (4月から翌年3月), not today's members."""
    club.clock = at("2025-04-01")
    for name, address in (("A, A", "a@example.jp"), ("B, B", "b@example.jp"),
                          ("C, C", "c@example.jp")):
        cli("member", "add", "--name", name, "--email", address,
            "--now", "2025-04-01T09:00:00+09:00")
    cli("member", "set", "a@example.jp", "--kind", "regular", "--paid-until", "2025-06-30")
    cli("member", "set", "b@example.jp", "--kind", "family", "--family-of", "a@example.jp")
    cli("member", "set", "c@example.jp", "--kind", "regular", "--paid-until", "2027-03-31")
    cli("member", "add", "--name", "D, D", "--email", "d@example.jp", "--kind", "junior",
        "--born", "2012", "--paid-until", "2027-03-31", "--now", "2026-05-01T09:00:00+09:00")

    def members(year: str) -> list[str]:
        rows = cli("club", "report", "--year", year, "--format", "csv",
                   "--now", "2026-06-01T09:00:00+09:00").splitlines()
        return [r for r in rows if r.startswith("members,")]

    # 2025: A (lapsed in June), B (A's family), C; D joined in 2026
    assert members("2025") == ["members,regular,2,", "members,family,1,",
                               "members,junior,0,"]
    # 2026: A and B ran out in 2025; C and the junior D
    assert members("2026") == ["members,regular,1,", "members,family,0,",
                               "members,junior,1,"]
    ja = cli("club", "report", "--year", "2025", "--lang", "ja",
             "--now", "2026-06-01T09:00:00+09:00")
    assert "会員の種別（年度中に一日でも有効だった会員）" in ja


def test_members_one_year_of_birth(club: Club, cli: Cli) -> None:
    """ジュニア会員 (18歳の年度末まで): the year of birth is the member's one, the go
    salon's and the books' alike (``member show --json``: ``born`` and the membership's)."""
    cli("member", "add", "--name", "Mori, Hiro", "--email", "j@example.jp",
        "--now", "2026-03-02T09:00:00+09:00")
    cli("member", "set", "j@example.jp", "--born", "2010")
    out = cli("member", "set", "j@example.jp", "--kind", "junior")  # --born given before
    assert "membership: junior" in out
    shown = json.loads(cli("member", "show", "j@example.jp", "--json"))
    assert shown["born"] == 2010 and shown["membership"]["born"] == 2010
