"""The command line as an operator uses it (INTERFACE.md): exit codes, one-line errors,
nothing half-written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def relaybot(cwd: Path, *args: str, env: dict[str, str] | None = None,
             timeout: int = 120) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("RELAYBOT_")}
    return subprocess.run([sys.executable, "-m", "relaybot.cli", *args], cwd=cwd,
                          env={**base, **(env or {})}, capture_output=True, text=True,
                          timeout=timeout)


def one_line_error(proc: subprocess.CompletedProcess[str], needle: str) -> None:
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("relaybot: ") and needle in lines[0], lines[0]


def test_init_is_safe_to_run_twice(tmp_path: Path) -> None:
    first = relaybot(tmp_path, "init")
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "relaybot.toml").exists() and (tmp_path / "relaybot.db").exists()
    (tmp_path / "relaybot.toml").write_text(
        (tmp_path / "relaybot.toml").read_text() + "\n# operator note\n")
    second = relaybot(tmp_path, "init")
    assert second.returncode == 0
    assert "# operator note" in (tmp_path / "relaybot.toml").read_text()


def test_members_games_show_and_pgn(tmp_path: Path) -> None:
    relaybot(tmp_path, "init")
    config = tmp_path / "relaybot.toml"
    text = config.read_text(encoding="utf-8")
    assert 'name = "relaybot"' in text and 'site = ""' in text  # init writes both
    config.write_text(text.replace('site = ""', 'site = "Kanto CC, Tokyo"'), encoding="utf-8")
    ok = relaybot(tmp_path, "member", "add", "--name", "Hayakawa, Satoru", "--email",
                  "Hayakawa@Example.jp", "--lang", "ja", "--rating", "1850")
    assert ok.returncode == 0, ok.stderr
    csv = tmp_path / "members.csv"
    csv.write_text("name,email,lang,tz,rating,notation\n"
                   "\"Horie, Takahiro\",horie@example.org,en,Europe/London,,numeric\n",
                   encoding="utf-8")
    assert relaybot(tmp_path, "member", "import", str(csv)).returncode == 0
    new = relaybot(tmp_path, "game", "new", "--white", "hayakawa@example.jp", "--black",
                   "horie@example.org", "--event", "Club 2026", "--create-event",
                   "--start", "2026-11-01")
    assert new.returncode == 0, new.stderr
    game_id, address = new.stdout.splitlines()[:2]
    assert address == f"relay+{game_id}@club.example"
    show = relaybot(tmp_path, "game", "show", game_id)
    assert show.returncode == 0 and "Hayakawa Satoru" in show.stdout and "active" in show.stdout
    pgn = relaybot(tmp_path, "game", "pgn", game_id)
    assert '[WhiteJCCA "1850"]' in pgn.stdout and '[Date "2026.11.01"]' in pgn.stdout
    assert "rules: grace 1 day after receipt" in show.stdout and "leave allowed" in show.stdout
    league = relaybot(tmp_path, "game", "new", "--white", "hayakawa@example.jp", "--black",
                      "horie@example.org", "--grace", "2", "--no-leave")
    assert league.returncode == 0, league.stderr
    shown = relaybot(tmp_path, "game", "show", league.stdout.split()[0])
    # J7 翌々日 and seed 002 rule 10 (一時的な中断は認められず), set and shown
    assert "grace 2 days" in shown.stdout and "leave not allowed" in shown.stdout
    one_line_error(relaybot(tmp_path, "game", "new", "--white", "hayakawa@example.jp",
                            "--black", "horie@example.org", "--grace", "5"), "--grace")
    record = relaybot(tmp_path, "game", "record", game_id)
    # chess's own format: PGN as programs read it (issue 15); `game pgn` stays J15's form
    assert record.returncode == 0 and record.stdout != pgn.stdout
    for tag in ('[Site "Kanto CC, Tokyo"]', '[WhiteElo "1850"]', '[TimeControl "10/2592000"]',
                '[Termination "unterminated"]', '[Date "2026.11.01"]'):
        assert tag in record.stdout
    assert "WhiteJCCA" not in record.stdout and "TimeControl" not in pgn.stdout
    one_line_error(relaybot(tmp_path, "game", "record", game_id, "--format", "kif"), "pgn")
    # a game this relaybot does not play: one clear line naming the games it does
    one_line_error(relaybot(tmp_path, "game", "new", "--white", "hayakawa@example.jp",
                            "--black", "horie@example.org", "--game", "backgammon"), "chess")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("member", "add", "--name", "X, Y", "--email", "not-an-address"), "--email"),
        (("member", "add", "--name", "X, Y", "--email", "x@y.example", "--tz", "Moon/Base"),
         "--tz"),
        (("game", "new", "--white", "nobody@example.org", "--black", "x@y.example"),
         "nobody@example.org"),
        (("game", "show", "zzzzzz"), "zzzzzz"),
        (("run", "--now", "yesterday"), "--now"),
        # argparse's own mistakes: one line with where the help is, no usage block
        (("game", "new", "--start", "2026-02-30"), "see: relaybot game new --help"),
        (("gmae", "list"), "did you mean 'game'?"),
    ],
)
def test_operator_mistakes_get_one_clear_line(tmp_path: Path, args: tuple[str, ...],
                                              needle: str) -> None:
    relaybot(tmp_path, "init")
    one_line_error(relaybot(tmp_path, *args), needle)


def test_a_time_control_the_clocks_cannot_count_is_refused(tmp_path: Path) -> None:
    """J8: ``game new --time-control`` is read as the clocks read it: a control with no
    moves or no days is one line, and no game; one written loosely is kept as it reads."""
    relaybot(tmp_path, "init")
    for name, email in (("Ito, Ken", "ito@example.jp"), ("Ono, Aki", "ono@example.jp")):
        assert relaybot(tmp_path, "member", "add", "--name", name, "--email", email).returncode == 0
    players = ("--white", "ito@example.jp", "--black", "ono@example.jp")
    for control, needle in (("0/30", "moves and days must both be > 0"),
                            ("bank:0", "more than 0 days"), ("10/30,max:0", "maximum")):
        one_line_error(relaybot(tmp_path, "game", "new", *players, "--time-control", control),
                       needle)
    assert json.loads(relaybot(tmp_path, "game", "list", "--json").stdout) == []
    loose = relaybot(tmp_path, "game", "new", *players, "--time-control", "10 / 50")
    assert loose.returncode == 0, loose.stderr
    shown = relaybot(tmp_path, "game", "show", loose.stdout.split()[0]).stdout
    assert "time control: 10/50" in shown


def test_bad_config_names_the_key(tmp_path: Path) -> None:
    (tmp_path / "relaybot.toml").write_text("[imap]\nport = 'x'\n")
    one_line_error(relaybot(tmp_path, "game", "show", "abc"), "imap.port")
    (tmp_path / "relaybot.toml").write_text("[imap]\nport = 993\n")
    one_line_error(relaybot(tmp_path, "game", "show", "abc",
                            env={"RELAYBOT_SMTP_PORT": "99999"}), "RELAYBOT_SMTP_PORT")


def test_a_database_relaybot_cannot_open_is_one_line(tmp_path: Path) -> None:
    """An operator's database URL: a database relaybot does not run on, or a driver this
    machine lacks, is one line naming the setting, not a driver's traceback."""
    relaybot(tmp_path, "init")
    one_line_error(relaybot(tmp_path, "game", "list",
                            env={"RELAYBOT_DATABASE_URL": "mysql://club@db/club"}),
                   "RELAYBOT_DATABASE_URL")
    one_line_error(relaybot(tmp_path, "game", "list",
                            env={"RELAYBOT_DATABASE_URL": "postgresql+nosuchdriver://h/club"}),
                   "database.url")


def test_import_is_all_or_nothing(tmp_path: Path) -> None:
    relaybot(tmp_path, "init")
    csv = tmp_path / "m.csv"
    csv.write_text("name,email,lang,tz,rating,notation\n"
                   "\"A, B\",a@example.org,en,,,\n"
                   "\"C, D\",broken,en,,,\n", encoding="utf-8")
    one_line_error(relaybot(tmp_path, "member", "import", str(csv)), "m.csv:3")
    # the first row was not written either: adding it now succeeds
    ok = relaybot(tmp_path, "member", "add", "--name", "A, B", "--email", "a@example.org")
    assert ok.returncode == 0, ok.stderr
    csv.write_text("name,email\n\"E, F\",e@example.org\n", encoding="utf-8")
    one = relaybot(tmp_path, "member", "import", str(csv))
    assert one.stdout.strip().splitlines()[-1] == "imported 1 member", one.stderr


def test_run_once_with_unreachable_imap_is_one_line(tmp_path: Path) -> None:
    relaybot(tmp_path, "init")
    proc = relaybot(tmp_path, "run", "--once", env={"RELAYBOT_IMAP_PORT": "1",
                                                  "RELAYBOT_IMAP_PASSWORD": "pw"})
    one_line_error(proc, "IMAP")


def test_demo_plays_a_game_with_nothing_configured(tmp_path: Path) -> None:
    proc = relaybot(tmp_path, "demo", timeout=180)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Please correct your move" in out  # the illegal move and its answer
    assert "ended 1-0 (checkmate)" in out
    assert "4. Qxf7#" in out
    assert list(tmp_path.iterdir()) == []  # throwaway: nothing left behind


def test_init_upgrades_an_old_config_and_run_refuses_without_a_secret(tmp_path: Path) -> None:
    """Issue 12: a config from before reply tokens loads, but `run` will not send mail
    without `bot.secret`; `relaybot init` adds one (and the other new keys), keeping the
    operator's lines."""
    old = '# our club\n[bot]\naddress = "relay@chess.example"\n'
    (tmp_path / "relaybot.toml").write_text(old)
    assert relaybot(tmp_path, "game", "show", "abc").returncode == 2  # loads: no such game
    one_line_error(relaybot(tmp_path, "run", "--once"), "bot.secret")
    up = relaybot(tmp_path, "init")
    assert up.returncode == 0, up.stderr
    assert "bot.secret" in up.stdout
    text = (tmp_path / "relaybot.toml").read_text()
    assert "# our club" in text
    assert 'address = "relay@chess.example"' in text and "secret = \"" in text
    again = relaybot(tmp_path, "init")
    assert (tmp_path / "relaybot.toml").read_text() == text and "left as it is" in again.stdout
    # an environment secret is enough for a config without one
    (tmp_path / "relaybot.toml").write_text(old)
    proc = relaybot(tmp_path, "run", "--once",
                    env={"RELAYBOT_BOT_SECRET": "from-env", "RELAYBOT_IMAP_PORT": "1",
                         "RELAYBOT_IMAP_PASSWORD": "pw"})
    one_line_error(proc, "IMAP")


def test_init_writes_a_new_config_with_a_secret_readable_by_the_operator_only(
        tmp_path: Path) -> None:
    assert relaybot(tmp_path, "init").returncode == 0
    path = tmp_path / "relaybot.toml"
    assert 'secret = ""' not in path.read_text()
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_member_at_the_bots_own_address_is_one_line(tmp_path: Path) -> None:
    """`member add` / `member import` with the bot's own address (or a plus address of
    it): every mail to that member would come back to the bot, which answers none of its
    own mail; refused in one line, nothing imported. The same for `event new --td` and
    `season new --td`."""
    relaybot(tmp_path, "init")
    one_line_error(relaybot(tmp_path, "member", "add", "--name", "Self, Bot", "--email",
                            "Relay@club.example"), "is the bot's own address")
    one_line_error(relaybot(tmp_path, "member", "add", "--name", "Self, Bot", "--email",
                            "relay+k7m2qx@club.example"), "is the bot's own address")
    csv = tmp_path / "m.csv"
    csv.write_text('name,email\n"A, B",ab@example.jp\n"Self, Bot",relay@club.example\n',
                   encoding="utf-8")
    one_line_error(relaybot(tmp_path, "member", "import", str(csv)),
                   "m.csv:3: --email relay@club.example is the bot's own address")
    assert relaybot(tmp_path, "member", "list").stdout == ""
    # another mailbox at the club's domain is a member like any other
    assert relaybot(tmp_path, "member", "add", "--name", "T, D", "--email",
                    "relay-td@club.example").returncode == 0
    # nor may an event's or a season's own TD be the bot: no report would reach anyone
    assert relaybot(tmp_path, "member", "add", "--name", "A, B", "--email",
                    "ab@example.jp").returncode == 0
    one_line_error(relaybot(tmp_path, "event", "new", "Cup", "--kind", "match", "--players",
                            "ab@example.jp,relay-td@club.example", "--td",
                            "relay+td@club.example"), "--td relay+td@club.example is the bot's")
    one_line_error(relaybot(tmp_path, "season", "new", "第1期", "--game", "shogi", "--start",
                            "2027-01-01", "--class", "S=ab@example.jp", "--td",
                            "RELAY@club.example"), "--td relay@club.example is the bot's own")
    assert "Cup" not in relaybot(tmp_path, "event", "list").stdout
