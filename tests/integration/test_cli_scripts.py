"""A CLI for people and scripts (issue 28 item 4): ``--json`` documents as INTERFACE.md
"Output for scripts" fixes them, ``--now`` on every command that changes games or members,
and a one-line answer for each rough edge the issue names."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_cli import relaybot

pytestmark = pytest.mark.integration

CHESS_W, CHESS_B = "hayakawa@example.jp", "horie@example.org"
SHOGI = "sato@example.jp"
GO_STRONG, GO_WEAK = "kato@example.jp", "Ono@Example.jp"  # the weak one as registered


def ok(cwd: Path, *args: str) -> str:
    proc = relaybot(cwd, *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def as_json(cwd: Path, *args: str) -> Any:
    return json.loads(ok(cwd, *args, "--json"))


def one_line_error(proc: subprocess.CompletedProcess[str], needle: str) -> str:
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("relaybot: ") and needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A club with a chess event, a shogi game and a go game, each finished by the TD,
    every date from ``--now``."""
    path = tmp_path_factory.mktemp("club")
    ok(path, "init")
    ok(path, "member", "add", "--name", "Hayakawa, Satoru", "--email", CHESS_W,
       "--rating", "1850", "--now", "2026-01-05T09:00:00+09:00")
    ok(path, "member", "add", "--name", "Horie, Takahiro", "--email", CHESS_B,
       "--now", "2026-01-05T09:00:00+09:00")
    ok(path, "member", "add", "--name", "佐藤, 一郎", "--email", SHOGI, "--game", "shogi",
       "--rating", "1500", "--now", "2026-01-06T09:00:00+09:00")
    ok(path, "member", "add", "--name", "加藤, 愛", "--email", GO_STRONG, "--game", "go",
       "--rank", "1d", "--now", "2026-01-06T09:00:00+09:00")
    ok(path, "member", "add", "--name", "小野, 健", "--email", GO_WEAK, "--game", "go",
       "--rank", "4k", "--notation", "san:de", "--now", "2026-01-06T09:00:00+09:00")
    event = ok(path, "event", "new", "Club 2026", "--kind", "match", "--players",
               f"{CHESS_W},{CHESS_B}", "--now", "2026-02-01T10:00:00+09:00")
    chess = [line.split()[0] for line in event.splitlines()[1:]]
    shogi = ok(path, "game", "new", "--game", "shogi", "--black", SHOGI, "--white", CHESS_B,
               "--now", "2026-02-02T10:00:00+09:00").split()[0]
    go_new = ok(path, "game", "new", "--game", "go", "--white", GO_WEAK, "--black",
                GO_STRONG, "--handicap", "auto", "--now", "2026-02-03T10:00:00+09:00")
    go = go_new.split()[0]
    ok(path, "td", "adjudicate", chess[0], "1-0", "--now", "2026-03-01T12:00:00+09:00")
    ok(path, "td", "adjudicate", shogi, "sente", "--now", "2026-03-02T12:00:00+09:00")
    ok(path, "td", "--now", "2026-03-03T12:00:00+09:00", "adjudicate", go, "B+3.5")
    return {"path": path, "chess": chess, "shogi": shogi, "go": go, "go_new": go_new}


def test_game_list_json_has_the_keys_and_the_td_words(club: dict[str, Any]) -> None:
    games = {g["id"]: g for g in as_json(club["path"], "game", "list")}
    assert set(games) == {*club["chess"], club["shogi"], club["go"]}
    for g in games.values():
        assert {"id", "game", "event", "state", "result", "black", "white"} <= set(g)
    first, second = (games[i] for i in club["chess"])
    assert first["game"] == "chess" and first["event"] == "Club 2026"
    assert first["state"] == "finished" and first["result"] == "1-0"
    assert second["state"] == "active" and second["result"] is None
    assert {first["white"], first["black"]} == {CHESS_W, CHESS_B}
    shogi = games[club["shogi"]]  # --black is 先手: the result in the TD's words
    assert (shogi["black"], shogi["white"], shogi["result"]) == (SHOGI, CHESS_B, "sente")
    assert shogi["event"] is None and shogi["start"] == "2026-02-02"
    go = games[club["go"]]  # R4: fewer points take Black, the address as registered
    assert (go["black"], go["white"], go["result"]) == (GO_WEAK.lower(), GO_STRONG, "B+3.5")
    assert go["end"] == "2026-03-03"  # the TD's --now
    active = as_json(club["path"], "game", "list", "--active")
    assert [g["id"] for g in active] == [club["chess"][1]]


def test_game_show_json_is_the_text_s_facts(club: dict[str, Any]) -> None:
    g = as_json(club["path"], "game", "show", club["chess"][1])
    assert g["id"] == club["chess"][1] and g["state"] == "active" and g["result"] is None
    assert g["address"] == f"relay+{g['id']}@club.example"
    assert g["to_move"] == "white" and g["moves"] == [] and g["plies"] == 0
    assert g["start"] == "2026-02-01" and g["grace_days"] == 1 and g["leave_allowed"]
    shogi = as_json(club["path"], "game", "show", club["shogi"])
    assert shogi["result"] == "sente" and shogi["termination"] == "adjudication"
    assert shogi["end"] == "2026-03-02" and shogi["to_move"] is None
    # R4: the go game's terms, as its text shows them ("Komi: 5.5  Handicap: 6 stones"):
    # 1d (125) against 4k (85), a difference of 40: 6 stones, Black gives 5.5 (SGF's KM)
    go = as_json(club["path"], "game", "show", club["go"])
    assert (go["size"], go["handicap"], go["komi"], go["free"]) == (19, 6, 5.5, False)
    assert "size" not in shogi and "komi" not in g


def test_r4_game_show_json_says_a_go_game_of_7_stones_is_free(tmp_path: Path) -> None:
    """Seed 004 section 2: a game of 7 stones or more is a free game (カウント外の自由対局):
    ``game show --json`` says so, as it says the stones and the komi."""
    ok(tmp_path, "init")
    for name, address, rank in (("加藤, 愛", GO_STRONG, "1d"), ("小野, 健", GO_WEAK, "4k")):
        ok(tmp_path, "member", "add", "--name", name, "--email", address, "--game", "go",
           "--rank", rank)
    free = ok(tmp_path, "game", "new", "--game", "go", "--white", GO_STRONG, "--black",
              GO_WEAK, "--handicap", "7").split()[0]
    shown = as_json(tmp_path, "game", "show", free)
    assert (shown["size"], shown["handicap"], shown["free"]) == (19, 7, True)


def test_member_show_and_list_json(club: dict[str, Any]) -> None:
    m = as_json(club["path"], "member", "show", CHESS_W)
    assert m["email"] == CHESS_W and m["name"] == "Hayakawa, Satoru"
    chess = m["ratings"]["chess"]
    assert {"rating", "official", "games", "wins", "losses", "draws"} <= set(chess)
    assert chess["official"] is True and chess["games"] == 1 and chess["wins"] == 1
    assert m["joined"].startswith("2026-01-05T00:00:00")  # --now, in UTC
    assert set(m["ratings"]) == {"chess"}  # only the games the member plays
    go = as_json(club["path"], "member", "show", GO_WEAK.lower())["ratings"]["go"]
    # seed 004: a game decided without a move counts for nothing, and points from a
    # declared rank stay provisional until the chair sets official ones
    assert {"rating", "official", "games", "wins", "losses", "draws", "rank", "counted"} <= \
        set(go)
    assert go["counted"] == 0 and go["wins"] == 0 and go["official"] is False
    assert go["rank"] == "4k"
    both = as_json(club["path"], "member", "show", CHESS_B)["ratings"]
    assert both["chess"]["losses"] == 1 and both["shogi"]["losses"] == 1
    assert both["chess"]["official"] is False  # provisional (1200) after one game
    listed = {m["email"]: m for m in as_json(club["path"], "member", "list")}
    assert set(listed) == {CHESS_W, CHESS_B, SHOGI, GO_STRONG, GO_WEAK.lower()}
    assert listed[GO_WEAK.lower()]["notation"] == "san:de"
    assert listed[SHOGI]["name"] == "佐藤, 一郎"


def test_event_show_and_list_json(club: dict[str, Any]) -> None:
    e = as_json(club["path"], "event", "show", "Club 2026")
    assert (e["event"], e["kind"], e["game"]) == ("Club 2026", "match", "chess")
    assert e["start"] == "2026-02-01"
    ranks = [(r["rank"], r["email"], r["score"]) for r in e["standings"]]
    # a JCCA match: the first --players takes White in the first game, which 1-0 won
    assert ranks == [(1, CHESS_W, 1.0), (2, CHESS_B, 0.0)]
    assert {"games", "wins", "draws", "losses"} <= set(e["standings"][0])
    assert sorted(g["id"] for g in e["games"]) == sorted(club["chess"])
    [listed] = as_json(club["path"], "event", "list")
    assert (listed["event"], listed["kind"], listed["game"], listed["game_count"],
            listed["active_games"], listed["start"]) == (
        "Club 2026", "match", "chess", 2, 1, "2026-02-01")
    text = ok(club["path"], "event", "list").splitlines()
    assert text == ["Club 2026\tmatch\tchess\tfrom 2026-02-01\t1 of 2 games active"]


def test_handicap_auto_says_the_terms_and_why(club: dict[str, Any]) -> None:
    lines = club["go_new"].splitlines()
    assert len(lines) == 3 and lines[1] == f"relay+{lines[0]}@club.example"
    assert lines[2].startswith("handicap auto: ")
    assert "stones" in lines[2] and "komi" in lines[2] and "fewer points take Black" in lines[2]
    assert "(--white and --black swapped)" in lines[2]  # --white ono has fewer points


def test_member_show_lines_only_for_games_the_member_plays(club: dict[str, Any]) -> None:
    go_only = ok(club["path"], "member", "show", GO_STRONG).splitlines()
    assert len(go_only) == 2 and go_only[1].startswith("go: points ")  # no chess line
    assert "notation san:de" in ok(club["path"], "member", "show", GO_WEAK).splitlines()[0]
    shogi = ok(club["path"], "member", "show", SHOGI).splitlines()
    assert [line.split(":")[0] for line in shogi[1:]] == ["shogi"]


def test_game_new_refuses_an_unknown_event_or_creates_it(tmp_path: Path) -> None:
    ok(tmp_path, "init")
    for name, addr in (("A, B", "a@example.org"), ("C, D", "c@example.org")):
        ok(tmp_path, "member", "add", "--name", name, "--email", addr)
    pair = ("--white", "a@example.org", "--black", "c@example.org")
    one_line_error(relaybot(tmp_path, "game", "new", *pair, "--event", "No Such"),
                   "no event named 'No Such': create it first (relaybot event new) or "
                   "add --create-event")
    assert as_json(tmp_path, "game", "list") == []  # nothing half-made
    gid = ok(tmp_path, "game", "new", *pair, "--event", "Autumn  Cup", "--create-event",
             "--now", "2026-10-01T12:00:00Z").split()[0]
    event = as_json(tmp_path, "event", "show", "Autumn Cup")
    assert event["kind"] == "group" and event["start"] == "2026-10-01"
    assert [r["email"] for r in event["standings"]] == ["a@example.org", "c@example.org"]
    assert [g["id"] for g in event["games"]] == [gid]


def test_td_help_lists_every_td_command(tmp_path: Path) -> None:
    from relaybot.pipeline.td import COMMANDS

    shown = ok(tmp_path, "td", "--help")
    for command in COMMANDS.values():
        assert command.usage in shown and command.usage_ja in shown
    assert "--now" in shown


@pytest.mark.slow
def queued(cwd: Path, *args: str) -> str:
    """``digest send``'s report of what it queued. No mail server listens here, so a run
    that has mail to send ends with exit 3 and its one line (the mails stay queued)."""
    proc = relaybot(cwd, "digest", "send", *args)
    if proc.returncode == 3:
        assert "stay queued" in proc.stderr.strip().splitlines()[-1], proc.stderr
    else:
        assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_digest_send_says_why_nothing_was_queued(tmp_path: Path) -> None:
    ok(tmp_path, "init")
    none = queued(tmp_path, "--now", "2026-11-24T12:00:00+09:00")
    assert none.splitlines()[-1] == ("nothing queued: no member takes the weekly digest "
                                     "(relaybot member set ADDR --digest weekly)")
    ok(tmp_path, "member", "add", "--name", "A, B", "--email", "a@example.org",
       "--now", "2026-11-01T00:00:00Z")
    ok(tmp_path, "member", "add", "--name", "C, D", "--email", "c@example.org",
       "--now", "2026-11-01T00:00:00Z")
    ok(tmp_path, "game", "new", "--white", "a@example.org", "--black", "c@example.org",
       "--now", "2026-11-02T00:00:00Z")
    monday = queued(tmp_path, "--now", "2026-11-23T12:00:00+09:00")
    assert monday.startswith("digests queued: 2;")
    # a member joins on Tuesday: the club's Monday digests are out, theirs waits
    ok(tmp_path, "member", "add", "--name", "E, F", "--email", "e@example.org",
       "--now", "2026-11-24T01:00:00Z")
    ok(tmp_path, "game", "new", "--white", "a@example.org", "--black", "e@example.org",
       "--now", "2026-11-24T01:00:00Z")
    tuesday = queued(tmp_path, "--now", "2026-11-24T12:00:00+09:00")
    assert tuesday.splitlines()[0].startswith("digests queued: 0;")
    assert tuesday.splitlines()[1] == (
        "nothing queued: 2 had this week's already (one a week, on Monday); 1 joined after "
        "this week's Monday: their first comes next Monday (--force to send it now)")
    forced = queued(tmp_path, "--force", "--now", "2026-11-24T12:00:00+09:00")
    assert forced.startswith("digests queued: 1;")  # the new member's; never two a week


@pytest.mark.parametrize(
    ("header", "needle"),
    [("name,email,lang,tz,rating,notation,colour", "unknown column 'colour': the header "
      "needs name and email (名前, メール); the other columns are optional: name_ja,lang,tz,"
      "rating,notation,game,provisional,rank,titles"),
     ("name,lang", "no email column (got name,lang)"),
     ("name,email,名前", "column name given twice")],
)
def test_the_csv_check_names_the_columns_it_wants(tmp_path: Path, header: str,
                                                   needle: str) -> None:
    ok(tmp_path, "init")
    csv = tmp_path / "m.csv"
    cells = ",".join("x" for _ in header.split(","))
    csv.write_text(f"{header}\n{cells}\n", encoding="utf-8")
    assert one_line_error(relaybot(tmp_path, "member", "import", str(csv)), needle
                          ).startswith(f"relaybot: {csv}:1: ")


def test_the_csv_takes_japanese_header_names(tmp_path: Path) -> None:
    ok(tmp_path, "init")
    csv = tmp_path / "会員.csv"
    csv.write_text("名前,メール,言語,レーティング,種目\n"
                   "\"山田, 太郎\",yamada@example.jp,ja,1500,shogi\n"
                   "\"Smith, Ann\",ann@example.org,en,,\n", encoding="cp932")
    assert ok(tmp_path, "member", "import", str(csv), "--now",
              "2026-04-01T00:00:00Z").strip().endswith("imported 2 members")
    yamada = as_json(tmp_path, "member", "show", "yamada@example.jp")
    assert yamada["name"] == "山田, 太郎" and yamada["ratings"]["shogi"]["rating"] == 1500
    assert yamada["joined"].startswith("2026-04-01T00:00:00")
