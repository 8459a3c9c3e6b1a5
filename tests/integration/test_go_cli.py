"""Go from the command line (issue 17): ``game new --game go`` with ``--size``,
``--handicap N|auto`` and ``--komi``, and ``game record ID [--format sgf]`` read back
with sgfmill. ``--handicap auto`` is the salon's table (R4, seed 004) on the members'
go points."""

from __future__ import annotations

from pathlib import Path

import pytest
from sgfmill import sgf

from tests.integration.test_cli import one_line_error, relaybot

pytestmark = pytest.mark.integration


def _member(cwd: Path, name: str, email: str, *go: str) -> None:
    proc = relaybot(cwd, "member", "add", "--name", name, "--email", email)
    assert proc.returncode == 0, proc.stderr
    if go:
        proc = relaybot(cwd, "member", "set", email, "--game", "go", *go)
        assert proc.returncode == 0, proc.stderr


def _record(cwd: Path, game_id: str) -> sgf.Sgf_game:
    proc = relaybot(cwd, "game", "record", game_id, "--format", "sgf")
    assert proc.returncode == 0, proc.stderr
    assert relaybot(cwd, "game", "record", game_id).stdout == proc.stdout  # sgf by default
    return sgf.Sgf_game.from_string(proc.stdout)


def _new(cwd: Path, *args: str) -> str:
    proc = relaybot(cwd, "game", "new", "--game", "go", *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()[0]


@pytest.mark.parametrize(
    ("a", "b", "black", "stones", "km"),
    [
        # R4 例1) A(1k)=115, B(1d)=125: 2 stones, Black gives 3.5
        (("--rating", "115"), ("--rating", "125"), "A", 2, 3.5),
        # 例2) A(1k)=115, B(2d)=135: 3 stones, Black gives 1.5
        (("--rating", "115"), ("--rating", "135"), "A", 3, 1.5),
        # 例3) A(1k)=115, B(3k)=93: 3 stones, White gives 0.5 (KM negative)
        (("--rating", "115"), ("--rating", "93"), "B", 3, -0.5),
        # 例4) A self-declared 4k (the band's middle, 85), B(1k)=120: 5 stones, Black 2.5
        (("--rank", "4k"), ("--rating", "120"), "A", 5, 2.5),
        # 例5) A(6d)=175, B(2k)=105: difference 70 >= 56: 7 stones, White gives 16.5
        (("--rating", "175"), ("--rating", "105"), "B", 7, -16.5),
    ],
)
def test_r4_seed_handicap_examples_through_game_new_auto(
        tmp_path: Path, a: tuple[str, ...], b: tuple[str, ...], black: str, stones: int,
        km: float) -> None:
    """R4: the seed's five worked examples; the member with fewer points takes Black
    whatever --white/--black said, and HA, AB and KM (added to White) are in the SGF."""
    assert relaybot(tmp_path, "init").returncode == 0
    _member(tmp_path, "A, Player", "a@example.jp", *a)
    _member(tmp_path, "B, Player", "b@example.jp", *b)
    game_id = _new(tmp_path, "--white", "a@example.jp", "--black", "b@example.jp",
                   "--handicap", "auto")
    game = _record(tmp_path, game_id)
    root = game.get_root()
    assert root.get("HA") == stones
    assert len(root.get("AB")) == stones
    assert game.get_komi() == km
    assert root.get("PB") == f"{black} Player"  # SGF: family first, no comma (issue 26)
    assert root.get("PW") == f"{'B' if black == 'A' else 'A'} Player"
    show = relaybot(tmp_path, "game", "show", game_id).stdout.splitlines()
    assert f"Black: {black} Player <{black.lower()}@example.jp>" in show
    assert "to move: White" in show  # White moves first in a handicap game


def test_size_handicap_and_komi_by_hand(tmp_path: Path) -> None:
    relaybot(tmp_path, "init")
    _member(tmp_path, "Kuro, Taro", "kuro@example.jp")
    _member(tmp_path, "Shiro, Hanako", "shiro@example.jp")
    game_id = _new(tmp_path, "--white", "shiro@example.jp", "--black", "kuro@example.jp",
                   "--size", "13", "--handicap", "4", "--komi", "0.5")
    game = _record(tmp_path, game_id)
    assert game.get_size() == 13 and game.get_handicap() == 4 and game.get_komi() == 0.5
    assert game.get_player_name("b") == "Kuro Taro"  # --black is Black in go (SGF: no comma)
    even = _new(tmp_path, "--white", "shiro@example.jp", "--black", "kuro@example.jp",
                "--size", "9", "--superko")
    game = _record(tmp_path, even)
    assert game.get_size() == 9 and game.get_handicap() is None and game.get_komi() == 5.5
    show = relaybot(tmp_path, "game", "show", even).stdout
    assert "Komi: 5.5  Positional superko" in show and "to move: Black" in show
    free = _new(tmp_path, "--white", "shiro@example.jp", "--black", "kuro@example.jp",
                "--free")  # seed 004: a free game at the players' wish
    assert "Free game (the salon points do not change)" in relaybot(
        tmp_path, "game", "show", free).stdout


@pytest.mark.parametrize(("args", "needle"), [
    (("--handicap", "auto"), "go points"),
    (("--handicap", "12"), "handicap"),
    (("--komi", "6.3"), "komi"),
    (("--overrun", "forfeit"), "not lost on time"),  # seed 004 7)
])
def test_go_game_mistakes_are_one_line(tmp_path: Path, args: tuple[str, ...],
                                       needle: str) -> None:
    relaybot(tmp_path, "init")
    _member(tmp_path, "Kuro, Taro", "kuro@example.jp")
    _member(tmp_path, "Shiro, Hanako", "shiro@example.jp")
    one_line_error(relaybot(tmp_path, "game", "new", "--game", "go", "--white",
                            "shiro@example.jp", "--black", "kuro@example.jp", *args), needle)


def test_chess_takes_no_go_options(tmp_path: Path) -> None:
    relaybot(tmp_path, "init")
    _member(tmp_path, "Kuro, Taro", "kuro@example.jp")
    _member(tmp_path, "Shiro, Hanako", "shiro@example.jp")
    one_line_error(relaybot(tmp_path, "game", "new", "--white", "shiro@example.jp",
                            "--black", "kuro@example.jp", "--size", "9"), "size")


def test_demo_plays_a_go_game_by_mail(tmp_path: Path) -> None:
    """``relaybot demo --game go``: a 9x9 game by mail, a move onto a stone refused in
    Japanese, two passes, both players state B+5.5, and the SGF printed at the end."""
    proc = relaybot(tmp_path, "demo", "--game", "go", timeout=180)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "E5 にはすでに石があります" in out  # the refused move, in the player's language
    assert "ended B+5.5 (counted). SGF:" in out
    game = sgf.Sgf_game.from_string(out[out.index("SGF:\n") + 5:])
    assert game.get_size() == 9 and game.get_root().get("RE") == "B+5.5"
    assert len(game.get_main_sequence()) == 9  # the root and eight moves
    assert list(tmp_path.iterdir()) == []


def test_td_side_and_result_words_for_go(tmp_path: Path) -> None:
    """INTERFACE TD commands: SIDE black/white/黒/白 and RESULT B+3.5, W+R, jigo in go;
    a chess result is refused with the go forms named."""
    relaybot(tmp_path, "init")
    _member(tmp_path, "Kuro, Taro", "kuro@example.jp")
    _member(tmp_path, "Shiro, Hanako", "shiro@example.jp")
    games = [_new(tmp_path, "--white", "shiro@example.jp", "--black", "kuro@example.jp",
                  "--size", "9") for _ in range(3)]
    one_line_error(relaybot(tmp_path, "td", "adjudicate", games[0], "1-0"),
                   "B+3.5, W+R, jigo or void")
    for game_id, args, result in ((games[0], ("forfeit", games[0], "黒"), "W+F"),
                                  (games[1], ("adjudicate", games[1], "jigo"), "jigo"),
                                  (games[2], ("adjudicate", games[2], "白2目半勝ち"), "W+2.5")):
        proc = relaybot(tmp_path, "td", *args)
        assert proc.returncode == 0, proc.stderr
        assert _record(tmp_path, game_id).get_root().get("RE") == (
            "0" if result == "jigo" else result)
