"""The CLI as an operator relies on it (issue 14 item 4, issue 12 item 11): lists, a closed
pipe, CSV from Excel in Japan, private files, passwords never printed, exit codes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from tests.integration.relay_harness import Club
from tests.integration.test_cli import relaybot
from tests.servers.postgres import pg_schema_url

pytestmark = pytest.mark.integration


def _club(tmp_path: Path) -> str:
    """An initialised club with three members and two games; returns the first game's id."""
    assert relaybot(tmp_path, "init").returncode == 0
    for name, addr in (("Hayakawa, Satoru", "hayakawa@example.jp"),
                       ("Horie, Takahiro", "horie@example.org"),
                       ("Kato, Ai", "kato@example.jp")):
        assert relaybot(tmp_path, "member", "add", "--name", name, "--email", addr).returncode == 0
    first = relaybot(tmp_path, "game", "new", "--white", "hayakawa@example.jp", "--black",
                     "horie@example.org", "--event", "Club 2026", "--create-event")
    assert first.returncode == 0, first.stderr
    assert relaybot(tmp_path, "game", "new", "--white", "kato@example.jp", "--black",
                    "horie@example.org").returncode == 0
    return first.stdout.split()[0]


def test_member_list_and_game_list_with_filters(tmp_path: Path) -> None:
    game_id = _club(tmp_path)
    members = relaybot(tmp_path, "member", "list")
    assert members.returncode == 0, members.stderr
    rows = [line.split("\t") for line in members.stdout.splitlines()]
    assert [r[0] for r in rows] == ["hayakawa@example.jp", "horie@example.org", "kato@example.jp"]
    assert rows[0][1] == "Hayakawa Satoru"  # no comma in a list (issue 26)
    games = relaybot(tmp_path, "game", "list")
    assert games.returncode == 0 and len(games.stdout.splitlines()) == 2
    # how far each game is, as its players count moves (not "0 plies")
    assert all(line.endswith("\tno move yet") for line in games.stdout.splitlines())
    event = relaybot(tmp_path, "game", "list", "--event", "Club  2026")  # spaces as elsewhere
    assert [line.split("\t")[0] for line in event.stdout.splitlines()] == [game_id]
    assert "Hayakawa Satoru - Horie Takahiro" in event.stdout
    assert relaybot(tmp_path, "td", "forfeit", game_id, "white").returncode == 0
    active = relaybot(tmp_path, "game", "list", "--active")
    assert len(active.stdout.splitlines()) == 1 and game_id not in active.stdout
    assert game_id in relaybot(tmp_path, "game", "list").stdout  # finished ones listed too
    # a mistyped event is one line naming it, as for game new --event and event show
    none = relaybot(tmp_path, "game", "list", "--event", "No such")
    assert none.returncode == 2 and none.stdout == ""
    assert none.stderr == "relaybot: no event named 'No such' (relaybot event list)\n"


def test_closed_pipe_is_no_traceback(tmp_path: Path) -> None:
    """`relaybot game pgn ID | head -1`: head leaves, relaybot ends quietly."""
    game_id = _club(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAYBOT_")}
    shell = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m relaybot.cli game pgn {game_id} | head -1'],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert shell.stdout.startswith("[Event ") and shell.stdout.count("\n") == 1
    assert shell.stderr == ""
    # the reader gone before a byte is written: the write itself meets EPIPE
    proc = subprocess.Popen([sys.executable, "-m", "relaybot.cli", "game", "list"], cwd=tmp_path,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err and err == ""


def test_member_import_reads_shift_jis_from_excel(tmp_path: Path) -> None:
    assert relaybot(tmp_path, "init").returncode == 0
    csv = tmp_path / "会員.csv"
    csv.write_bytes("name,email,lang,tz,rating,notation\r\n"
                    "\"早川, 聡\",hayakawa@example.jp,ja,Asia/Tokyo,1850,san\r\n"
                    "\"堀江, 孝宏\",horie@example.jp,ja,,(1320),\r\n".encode("cp932"))
    proc = relaybot(tmp_path, "member", "import", str(csv))
    assert proc.returncode == 0, proc.stderr
    assert "imported 2 members" in proc.stdout
    listed = relaybot(tmp_path, "member", "list").stdout
    assert "早川聡" in listed and "堀江孝宏" in listed and "chess:(1320)" in listed
    assert "," not in "".join(line.split("\t")[1] for line in listed.splitlines())


def test_a_member_has_a_name_in_japanese_script(tmp_path: Path) -> None:
    """Issue 26: ``--name-ja`` (add and set) and a CSV column 名前（漢字）; the lists show
    both names without a comma, the JSON the parts and the "Family, Given" form."""
    import json

    assert relaybot(tmp_path, "init").returncode == 0
    added = relaybot(tmp_path, "member", "add", "--name", "Hayakawa, Satoru", "--name-ja",
                     "早川悟", "--email", "hayakawa@example.jp", "--lang", "ja")
    assert added.returncode == 0, added.stderr
    assert "Hayakawa Satoru (早川悟) <hayakawa@example.jp>" in added.stdout
    csv = tmp_path / "会員.csv"
    csv.write_bytes("名前,メール,名前（漢字）,言語\r\n"
                    "\"Horie, Takahiro\",horie@example.jp,\"堀江, 孝宏\",ja\r\n"
                    "\"Smith, Ann\",ann@example.org,,en\r\n".encode("cp932"))
    imported = relaybot(tmp_path, "member", "import", str(csv))
    assert imported.returncode == 0, imported.stderr
    listed = [line.split("\t")[:2] for line in
              relaybot(tmp_path, "member", "list").stdout.splitlines()]
    assert listed == [["hayakawa@example.jp", "Hayakawa Satoru (早川悟)"],
                      ["horie@example.jp", "Horie Takahiro (堀江孝宏)"],
                      ["ann@example.org", "Smith Ann"]]
    changed = relaybot(tmp_path, "member", "set", "ann@example.org", "--name-ja", "スミス・アン")
    assert changed.returncode == 0, changed.stderr
    doc = json.loads(relaybot(tmp_path, "member", "show", "ann@example.org", "--json").stdout)
    assert (doc["name"], doc["family"], doc["given"], doc["name_ja"]) == (
        "Smith, Ann", "Smith", "Ann", "スミス・アン")
    assert relaybot(tmp_path, "member", "set", "ann@example.org", "--name-ja", "").returncode == 0
    doc = json.loads(relaybot(tmp_path, "member", "show", "ann@example.org", "--json").stdout)
    assert doc["name_ja"] is None


@pytest.mark.parametrize(
    ("lines", "needle"),
    [
        # an unclosed quote swallows the rest: the line where it opened is named
        (['"A, B",a@example.org,en,,,', '"C, D,c@example.org,en,,,', '"E, F",e@example.org,,,,'],
         "m.csv:3: not a valid CSV line"),
        # a name with a comma and no quotes: one cell too many
        (['"A, B",a@example.org,en,,,', "Kato, Ai,kato@example.jp,ja,,,"],
         "m.csv:3: 7 cells, but the header has 6"),
        (['"A, B",a@example.org,en,,,', "", '"C, D",c@example.org'],
         "m.csv:4: 2 cells, but the header has 6"),
    ],
)
def test_a_malformed_csv_line_is_named(tmp_path: Path, lines: list[str], needle: str) -> None:
    assert relaybot(tmp_path, "init").returncode == 0
    csv = tmp_path / "m.csv"
    csv.write_text("\n".join(["name,email,lang,tz,rating,notation", *lines]) + "\n",
                   encoding="utf-8")
    proc = relaybot(tmp_path, "member", "import", str(csv))
    assert proc.returncode == 2
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("relaybot: ") and needle in line, line
    assert relaybot(tmp_path, "member", "list").stdout == ""  # all or nothing


def test_csv_in_neither_encoding_is_one_line(tmp_path: Path) -> None:
    assert relaybot(tmp_path, "init").returncode == 0
    csv = tmp_path / "m.csv"
    csv.write_bytes(b"name,email\n\"A, B\",a@example.org\n\"\x81\xff\",x@example.org\n")
    proc = relaybot(tmp_path, "member", "import", str(csv))
    assert proc.returncode == 2 and "m.csv:3: neither UTF-8 nor Shift_JIS" in proc.stderr


def test_config_database_and_exports_are_private(tmp_path: Path) -> None:
    """Issue 12 item 11: relaybot.toml, the SQLite file and exports are created 0600."""
    game_id = _club(tmp_path)
    for name in ("relaybot.toml", "relaybot.db"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o600, name
    proc = relaybot(tmp_path, "game", "export", game_id, "--out", "game.mbox")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "game.mbox").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "game.mbox").read_bytes().startswith(b"From ")


def test_a_database_password_is_never_printed(tmp_path: Path) -> None:
    secret = "Sup3rSecretPw"
    unreachable = {"RELAYBOT_DATABASE_URL":
                   f"postgresql+psycopg://relay:{secret}@127.0.0.1:1/relaybot"}
    for args in (("init",), ("member", "list"), ("run", "--once")):
        proc = relaybot(tmp_path, *args, env={**unreachable, "RELAYBOT_BOT_SECRET": "k",
                                                   "RELAYBOT_IMAP_PASSWORD": "pw"})
        assert proc.returncode == 3, (args, proc.stderr)  # a server that cannot be reached
        assert secret not in proc.stdout + proc.stderr
        assert "relay:***@127.0.0.1:1" in proc.stderr
    with pg_schema_url() as url:  # trust auth: any password is accepted, none is shown
        with_pw = url.replace("postgresql+psycopg://postgres@",
                              f"postgresql+psycopg://postgres:{secret}@")
        proc = relaybot(tmp_path, "init", env={"RELAYBOT_DATABASE_URL": with_pw})
        assert proc.returncode == 0, proc.stderr
        assert secret not in proc.stdout + proc.stderr and "postgres:***@" in proc.stdout


def test_run_once_exit_codes(club: Club) -> None:
    """INTERFACE.md: 0 when the cycle ran, non-zero (3) when a server could not be reached."""
    white = club.member("Hayakawa, Satoru", "hayakawa@example.jp")
    black = club.member("Horie, Takahiro", "horie@example.org")
    club.game(white, black)
    now = club.clock.isoformat()
    ok = club.cli("run", "--once", "--now", now)
    assert ok.returncode == 0 and ok.stdout.startswith("mail: ")
    white.send("1. e4")
    down = club.cli("run", "--once", "--now", now, check=False,
                    extra_env={"RELAYBOT_SMTP_PORT": "1"})
    assert down.returncode == 3, down.stderr
    last = down.stderr.strip().splitlines()[-1]
    assert last.startswith("relaybot: SMTP 127.0.0.1:1: ") and "stay queued" in last
    assert "mail: 1 processed" in down.stdout  # the cycle itself ran
    again = club.cli("run", "--once", "--now", now, check=False)
    assert again.returncode == 0  # the server is back: the retry goes out
    no_imap = club.cli("run", "--once", "--now", now, check=False,
                       extra_env={"RELAYBOT_IMAP_PORT": "1"})
    assert no_imap.returncode == 3 and "relaybot: IMAP" in no_imap.stderr


def test_digest_send_exit_3_when_the_smtp_server_is_down(club: Club) -> None:
    """`digest send` asked to send now: a server that cannot be reached is exit 3 with one
    line, as for `run --once` (INTERFACE.md), and the digests stay queued for the retry."""
    white = club.member("Hayakawa, Satoru", "hayakawa@example.jp")
    black = club.member("Horie, Takahiro", "horie@example.org")
    club.game(white, black)  # its cycle sent this week's digests: ask for next week's
    now = (club.clock + timedelta(days=7)).isoformat()
    down = club.cli("digest", "send", "--now", now, check=False,
                    extra_env={"RELAYBOT_SMTP_PORT": "1"})
    assert down.returncode == 3, down.stderr
    last = down.stderr.strip().splitlines()[-1]
    assert last.startswith("relaybot: SMTP 127.0.0.1:1: ") and "2 mails stay queued" in last
    assert "digests queued: 2; sent: 0, retrying: 2" in down.stdout
    later = (club.clock + timedelta(days=8)).isoformat()  # the retry is due by then
    again = club.cli("digest", "send", "--now", later, check=False)
    assert again.returncode == 0, again.stderr
    assert "digests queued: 0; sent: 2, retrying: 0" in again.stdout
    # the first week's two (sent by the game's cycle) and this week's two, once each
    assert sum(c.parsed["X-Relaybot-Kind"] == "digest" for c in club.sink.captured) == 4


def test_web_mistakes_are_one_line(tmp_path: Path) -> None:
    """`relaybot web`: a port out of range, a port another program holds and a host that
    is no address are each one line and exit 2, before any server starts."""
    import socket

    from tests.integration.test_cli import one_line_error

    assert relaybot(tmp_path, "init").returncode == 0
    one_line_error(relaybot(tmp_path, "web", "--port", "99999"), "a port is 1-65535")
    one_line_error(relaybot(tmp_path, "web", "--port", "http"), "not a port number")
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        busy = relaybot(tmp_path, "web", "--port", str(port), timeout=60)
    one_line_error(busy, f"cannot listen on 127.0.0.1:{port}")
    assert busy.returncode == 2 and "uvicorn" not in busy.stderr
    one_line_error(relaybot(tmp_path, "web", "--host", "no-such-host.invalid"), "--host")


def test_run_touches_the_alive_file_and_stops_on_sigterm(club: Club) -> None:
    """`relaybot run --alive-file` (the compose health check reads the file's age)."""
    alive = club.workdir / "relaybot.alive"
    (club.workdir / "relaybot.toml").touch()
    proc = subprocess.Popen([sys.executable, "-m", "relaybot.cli", "run", "--alive-file",
                             str(alive)], cwd=club.workdir, env=club.env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        assert "serving" in proc.stderr.readline()  # the lock is held
        deadline = time.monotonic() + 60
        while not alive.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert alive.exists()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    assert proc.returncode == 0


def test_long_work_reports_its_progress(tmp_path: Path) -> None:
    """What the progress bars are fed: import per row, digests per batch of members."""
    from datetime import UTC, datetime

    from relaybot.app.digest import send_digests
    from relaybot.club.members import import_members
    from relaybot.config import load_config
    from relaybot.store.db import Store, migrate
    from relaybot.store.models import Announcement

    cfg = load_config(tmp_path / "none.toml", environ={
        "RELAYBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}", "RELAYBOT_BOT_SECRET": "k"})
    store = Store.open(cfg.database.url)
    migrate(store.engine)
    csv = tmp_path / "m.csv"
    csv.write_text("name,email\n" + "".join(f'"M, {i}",m{i}@example.org\n' for i in range(5)),
                   encoding="utf-8")
    seen: list[tuple[int, int]] = []
    now = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
    with store.session() as session:
        import_members(session, cfg, csv, now, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]
    with store.session() as session:  # members without a game get a digest only for news
        session.add(Announcement(text="Club meeting on Sunday", created_at=now))
    batches: list[tuple[int, int]] = []
    assert send_digests(store, cfg, now, progress=lambda d, t: batches.append((d, t))) == 5
    assert batches[-1] == (5, 5)
    store.dispose()
