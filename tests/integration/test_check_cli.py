"""``relaybot check`` and the login settings caught before connecting (issue 28 items 4
and 5), against the real Dovecot and the SMTP sink."""

from __future__ import annotations

import json
import socket
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.integration.test_cli import one_line_error, relaybot
from tests.servers.dovecot import Account
from tests.servers.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

WHEN = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def write_config(folder: Path, account: Account, sink: SmtpSink, *, password: str | None = None,
                 authserv_id: str = "mx.club.example", smtp: str = "") -> None:
    (folder / "relaybot.toml").write_text(
        f'[database]\nurl = "sqlite:///{folder / "club.db"}"\n'
        f'[bot]\nsecret = "s3cret"\nauthserv_id = "{authserv_id}"\n'
        f'[imap]\nhost = "{account.host}"\nport = {account.port}\nuser = "{account.user}"\n'
        f'password = "{account.password if password is None else password}"\n'
        f'[smtp]\nhost = "{sink.host}"\nport = {sink.port}\ntimeout = 5\n{smtp}',
        encoding="utf-8")


def inbound(n: int, authserv: str = "mx.club.example") -> bytes:
    return (f"Authentication-Results: {authserv}; dkim=pass header.d=example.org;\r\n"
            f" dmarc=pass header.from=example.org\r\n"
            f"Authentication-Results: mx.sender.example; spf=pass smtp.mailfrom=example.org\r\n"
            f"From: a@example.org\r\nTo: relay@club.example\r\nSubject: move {n}\r\n"
            f"Message-ID: <m{n}@example.org>\r\n\r\n1. e4\r\n").encode()


@pytest.fixture
def mailbox(imap_account: Account) -> Account:
    """A mailbox as a running club has it: one mail handled, one waiting."""
    imap_account.append(inbound(1), WHEN, folder="Processed")
    imap_account.append(inbound(2), WHEN)
    return imap_account


def lines(out: str) -> list[str]:
    return [" ".join(line.split()) for line in out.strip().splitlines()]


def test_check_with_good_settings_says_ok_and_sends_nothing(
        tmp_path: Path, mailbox: Account, smtp_sink: SmtpSink) -> None:
    write_config(tmp_path, mailbox, smtp_sink)
    proc = relaybot(tmp_path, "check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = lines(proc.stdout)
    assert f"ok imap: logged in to 127.0.0.1:{mailbox.port} as {mailbox.user} with the " \
           "password" in out
    assert "ok imap: INBOX: 1 mail(s) waiting" in out
    assert 'ok authserv_id: bot.authserv_id "mx.club.example" is what the mails carry: ' \
           "mx.club.example (2 of 2)" in out
    assert (f"ok smtp: connected to 127.0.0.1:{smtp_sink.port} (no login: smtp.user is "
            "empty); nothing sent") in out
    assert smtp_sink.captured == []
    # nothing moved or marked: the waiting mail is still waiting, unseen
    assert len(mailbox.uids()) == 1 and mailbox.flags(mailbox.uids()[0]) == set()


def test_check_with_a_wrong_password_names_the_setting(
        tmp_path: Path, mailbox: Account, smtp_sink: SmtpSink) -> None:
    write_config(tmp_path, mailbox, smtp_sink, password="wrong")
    proc = relaybot(tmp_path, "check")
    assert proc.returncode == 2
    [imap] = [line for line in lines(proc.stdout) if " imap: " in line]
    assert imap.startswith(f"problem imap: IMAP login refused for '{mailbox.user}'")
    assert imap.endswith("(check imap.user and imap.password)")


def test_check_with_a_wrong_authserv_id_lists_what_the_mails_carry(
        tmp_path: Path, mailbox: Account, smtp_sink: SmtpSink) -> None:
    write_config(tmp_path, mailbox, smtp_sink, authserv_id="mail.club.example")
    proc = relaybot(tmp_path, "check")
    assert proc.returncode == 2
    assert ('problem authserv_id: bot.authserv_id = "mail.club.example", but the last mails '
            "carry Authentication-Results from: mx.club.example (2 of 2); set "
            'bot.authserv_id to your own MTA\'s (the topmost header\'s, here '
            '"mx.club.example")') in lines(proc.stdout)
    data = json.loads(relaybot(tmp_path, "check", "--json").stdout)
    assert data["ok"] is False and data["authserv_ids"] == {"mx.club.example": 2}
    assert {"part": "authserv_id", "level": "problem"}.items() <= data["findings"][-2].items()


def test_check_with_no_authserv_id_suggests_the_one_seen(
        tmp_path: Path, mailbox: Account, smtp_sink: SmtpSink) -> None:
    write_config(tmp_path, mailbox, smtp_sink, authserv_id="")
    proc = relaybot(tmp_path, "check")
    assert proc.returncode == 0  # "" trusts no header: a choice, not a mistake
    [note] = [line for line in lines(proc.stdout) if "authserv_id:" in line]
    assert note.startswith("note authserv_id: bot.authserv_id is empty")
    assert note.endswith('set bot.authserv_id = "mx.club.example"')


def test_check_on_an_empty_mailbox_cannot_tell_yet(
        tmp_path: Path, imap_account: Account, smtp_sink: SmtpSink) -> None:
    write_config(tmp_path, imap_account, smtp_sink)
    proc = relaybot(tmp_path, "check")
    assert proc.returncode == 0, proc.stdout
    assert any(line.startswith("note authserv_id: no mail in the mailbox yet")
               for line in lines(proc.stdout))


def test_check_with_an_unreachable_smtp_server_exits_3(
        tmp_path: Path, mailbox: Account, smtp_sink: SmtpSink) -> None:
    write_config(tmp_path, mailbox, smtp_sink)
    proc = relaybot(tmp_path, "check", env={"RELAYBOT_SMTP_PORT": "1"})
    assert proc.returncode == 3
    [smtp] = [line for line in lines(proc.stdout) if " smtp: " in line]
    assert smtp.startswith("unreachable smtp: SMTP 127.0.0.1:1 cannot be reached")


def test_check_with_ssl_against_the_plain_imap_port_gives_the_hint(
        tmp_path: Path, mailbox: Account, smtp_sink: SmtpSink) -> None:
    write_config(tmp_path, mailbox, smtp_sink)
    proc = relaybot(tmp_path, "check", env={"RELAYBOT_IMAP_TLS": "ssl"})
    assert proc.returncode == 2
    assert (f"problem imap: IMAP connect to 127.0.0.1:{mailbox.port} failed: 127.0.0.1 port "
            f'{mailbox.port} answers in plain text, not TLS: set imap.tls = "starttls" (or '
            '"none" on a trusted network)') in lines(proc.stdout)


# --- settings caught before any connection ---------------------------------------------

class Listener:
    """A port that counts who connects to it (nobody should)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(5)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]

    def connections(self) -> int:
        count = 0
        while True:
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                return count
            conn.close()
            count += 1


@pytest.mark.parametrize(("env", "key"), [
    ({"RELAYBOT_IMAP_PASSWORD": ""}, "imap.password is empty"),
    ({"RELAYBOT_SMTP_USER": "relay", "RELAYBOT_SMTP_PASSWORD": ""},
     "smtp.password is empty while smtp.user is set"),
])
def test_run_refuses_an_empty_password_before_connecting(
        tmp_path: Path, imap_account: Account, smtp_sink: SmtpSink, env: dict[str, str],
        key: str) -> None:
    write_config(tmp_path, imap_account, smtp_sink)
    imap, smtp = Listener(), Listener()
    ports = {"RELAYBOT_IMAP_PORT": str(imap.port), "RELAYBOT_SMTP_PORT": str(smtp.port)}
    proc = relaybot(tmp_path, "run", "--once", env={**ports, **env})
    one_line_error(proc, key)
    assert proc.returncode == 2
    assert imap.connections() == 0 and smtp.connections() == 0
    # closed: check's own attempts at the other server are refused at once, not left to
    # time out against a port that never answers
    imap.sock.close()
    smtp.sock.close()
    check = relaybot(tmp_path, "check", env={**ports, **env})
    assert check.returncode == 2 and any(key in line for line in lines(check.stdout))


def test_an_oauth2_command_needs_no_password(
        tmp_path: Path, imap_account: Account, smtp_sink: SmtpSink) -> None:
    """With imap.oauth2_command the password may stay empty; a failing command is then
    the one line check prints for IMAP."""
    write_config(tmp_path, imap_account, smtp_sink, password="")
    proc = relaybot(tmp_path, "check", env={
        "RELAYBOT_IMAP_OAUTH2_COMMAND": "sh -c 'echo refresh token revoked >&2; exit 2'"})
    assert proc.returncode == 2
    [imap] = [line for line in lines(proc.stdout) if " imap: " in line]
    assert imap == "problem imap: imap.oauth2_command: sh failed (exit 2): refresh token revoked"
