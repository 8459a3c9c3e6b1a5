"""The go salon from the command line, as the salon's office runs it (seed 004):
``member estimate`` (section 2-2), ``member show --json``'s go keys, ``td adjudicate ID
void`` / ``勝負なし`` (section 2), ``--born`` / ``--serves`` (section 6)."""

from __future__ import annotations

import email
import json
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.integration.test_cli import one_line_error, relaybot

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(("args", "out"), [
    # 設問1)「自分(Bさん)は、持点176のAさんに、常先で打っている。Bさんの持点は?」
    (("--against", "176", "--stones", "1", "--komi", "0"), "171 (6d) or 170 (5d)"),
    # 設問2)「自分(Cさん)は、持点176のAさんに、7子置いて打っている。Cさんの持点は?」
    (("--against", "176", "--stones", "7", "--lang", "ja"), "123 (初段) または 122 (初段)"),
    # 設問3)「今度紹介するDさんは、持点120の私が、4子置いて打っている。Dさんの持点は?」
    (("--against", "120", "--stones", "4", "--gives"), "149 (3d) or 150 (3d)"),
])
def test_section2_2_estimate_the_three_questions(tmp_path: Path, args: tuple[str, ...],
                                                 out: str) -> None:
    """R4, seed 004 2-2 (自分の)持点の推定方法: the seed's three questions and answers."""
    relaybot(tmp_path, "init")
    proc = relaybot(tmp_path, "member", "estimate", *args)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == out


def test_section2_void_and_member_show_json(tmp_path: Path) -> None:
    """R4, seed 004 section 2: 「勝負なしの場合:対局前の持点のまま(対戦数にカウントされません)」;
    ``member show --json`` gives rating, official, games, wins, losses, draws, rank and
    counted; section 6's ``--born`` and ``--serves`` are kept."""
    relaybot(tmp_path, "init")
    for name, address, extra in (("Kuro, Taro", "kuro@example.jp", ("--born", "1950")),
                               ("Shiro, Hanako", "shiro@example.jp", ())):
        proc = relaybot(tmp_path, "member", "add", "--name", name, "--email", address,
                        "--game", "go", "--rank", "1d", *extra)
        assert proc.returncode == 0, proc.stderr
    proc = relaybot(tmp_path, "member", "set", "kuro@example.jp", "--serves")
    assert proc.returncode == 0, proc.stderr
    games = []
    for _ in range(2):
        proc = relaybot(tmp_path, "game", "new", "--game", "go", "--white", "shiro@example.jp",
                        "--black", "kuro@example.jp")
        assert proc.returncode == 0, proc.stderr
        games.append(proc.stdout.splitlines()[0])
    assert relaybot(tmp_path, "td", "adjudicate", games[0], "void").returncode == 0
    assert relaybot(tmp_path, "td", "adjudicate", games[1], "勝負なし").returncode == 0
    one_line_error(relaybot(tmp_path, "td", "adjudicate", games[1], "void"), "ended")
    shown = json.loads(relaybot(tmp_path, "member", "show", "kuro@example.jp",
                                "--json").stdout)
    assert shown["email"] == "kuro@example.jp" and shown["born"] == 1950 and shown["serves"]
    expected = {"rating": 125, "official": False, "games": 0, "wins": 0, "losses": 0,
                "draws": 0, "rank": "1d", "counted": 0, "win_rate": None}
    go = shown["ratings"]["go"]
    assert {key: go.get(key) for key in expected} == expected
    # the text shows what the JSON does: the year of birth and the wish to serve (6)
    text = relaybot(tmp_path, "member", "show", "kuro@example.jp").stdout.splitlines()
    assert text[0].endswith("  born 1950  serves"), text[0]
    assert text[1].endswith("after 0 counted games (0 wins 0 losses 0 jigo, win rate -; "
                            "0 games in all)"), text[1]
    listed = relaybot(tmp_path, "game", "show", games[0]).stdout
    # in the TD's words, as --json and `td adjudicate ID void` say it
    assert listed.splitlines()[0].endswith("  finished  void"), listed


def test_section4_even_game_toss_from_the_command_line(tmp_path: Path) -> None:
    """R4, seed 004 section 4: 「互い先の場合の先手後手は電子トス(*)あるいは対戦者の話し合い
    で決める。」 ``game new --game go --players A,B``: Black by toss, said in the start mail;
    ``--white``/``--black`` keep the operator's choice; ``--players`` is go's alone."""
    relaybot(tmp_path, "init")
    for name, address in (("Kuro, Taro", "kuro@example.jp"),
                          ("Shiro, Hanako", "shiro@example.jp")):
        assert relaybot(tmp_path, "member", "add", "--name", name, "--email", address,
                        "--game", "go", "--rank", "2k").returncode == 0
    proc = relaybot(tmp_path, "game", "new", "--game", "go", "--players",
                    "kuro@example.jp,shiro@example.jp", "--handicap", "auto")
    assert proc.returncode == 0, proc.stderr
    game_id = proc.stdout.splitlines()[0]
    from relaybot.store.db import Store
    from relaybot.store.models import Outbox

    store = Store.open(f"sqlite:///{tmp_path / 'relaybot.db'}")
    with store.session() as s:
        starts = [o.raw for o in s.query(Outbox).filter(Outbox.game_id == game_id,
                                                        Outbox.kind == "start")]
    store.dispose()
    assert len(starts) == 2
    for raw in starts:
        msg = email.message_from_bytes(raw, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        body = msg.get_body(preferencelist=("plain",))
        assert body is not None
        text = str(body.get_content())
        assert "電子トス" in text or "electronic toss" in text, text
    one_line_error(relaybot(tmp_path, "game", "new", "--players",
                            "kuro@example.jp,shiro@example.jp"), "--players is for go")
    one_line_error(relaybot(tmp_path, "game", "new", "--game", "go", "--white",
                            "kuro@example.jp"), "--white and --black")
