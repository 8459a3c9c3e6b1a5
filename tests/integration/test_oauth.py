"""OAuth 2.0 logins (issue 28): IMAP and SMTP with an access token from the operator's
command, against a real Dovecot whose ``oauth2`` passdb checks every token at an
introspection endpoint served here on loopback; and the hints for a TLS mode that does
not fit the port."""

from __future__ import annotations

import asyncio
import re
import shlex
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import aiosmtplib
import pytest

from relaybot.config import SmtpConfig
from relaybot.mail.imap import ImapAuthError, ImapError, ImapSettings, Mailbox
from relaybot.mail.smtp import SmtpSender
from tests.servers.dovecot import Account, Dovecot, free_port, self_signed_cert
from tests.servers.oauth import Introspection
from tests.servers.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration


class OAuthServers:
    """An introspection endpoint, an SMTP sink, and two Dovecots asking the endpoint:
    one offering XOAUTH2 and OAUTHBEARER (IMAP, submission, STARTTLS and implicit TLS),
    one offering XOAUTH2 only (as Microsoft 365 does)."""

    def __init__(self, root: Path) -> None:
        self.endpoint = Introspection()
        self.sink = SmtpSink()
        self.both: Dovecot | None = None
        self.xoauth2_only: Dovecot | None = None
        self.root = root

    def start(self) -> None:
        self.endpoint.start()
        self.sink.start()
        relay = (self.sink.host, self.sink.port)
        self.both = Dovecot(introspection_url=self.endpoint.url, submission_relay=relay,
                            tls_cert=self_signed_cert(self.root))
        self.both.start()
        self.xoauth2_only = Dovecot(introspection_url=self.endpoint.url,
                                    oauth2_mechanisms=("xoauth2",), submission_relay=relay)
        self.xoauth2_only.start()

    def close(self) -> None:
        for server in (self.both, self.xoauth2_only):
            if server is not None:
                server.close()
        self.sink.stop()
        self.endpoint.stop()


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OAuthServers]:
    root = tmp_path_factory.mktemp("oauth")
    root.chmod(0o755)  # Dovecot reads the certificate as its own user
    found = OAuthServers(root)
    try:
        found.start()
    except Exception:
        found.close()
        raise
    try:
        yield found
    finally:
        found.close()


def server(servers: OAuthServers, mechanism: str) -> Dovecot:
    found = servers.both if mechanism == "OAUTHBEARER" else servers.xoauth2_only
    assert found is not None
    return found


def token_command(tmp_path: Path, token: str) -> str:
    """A command as an operator writes one: a script printing the token, with an argument."""
    script = tmp_path / "mail token.py"  # a space in the path: shlex quoting must hold
    script.write_text("import sys\nprint(open(sys.argv[1]).read().strip())\n")
    (tmp_path / "token.txt").write_text(token + "\n")
    return shlex.join([sys.executable, str(script), str(tmp_path / "token.txt")])


def imap(account: Account, command: str, **kw: object) -> ImapSettings:
    return ImapSettings(account.host, account.port, account.user, "", timeout=10,
                        oauth2_command=command, **kw)  # type: ignore[arg-type]


def last_login_method(dovecot: Dovecot, user: str, service: str = "imap-login") -> str:
    methods = re.findall(rf"{service}: Info: Login: user=<{re.escape(user)}>, method=(\w+)",
                         dovecot.log(400))
    return methods[-1] if methods else ""


@pytest.mark.parametrize("mechanism", ["OAUTHBEARER", "XOAUTH2"])
def test_imap_logs_in_with_the_token_the_command_prints(
        servers: OAuthServers, tmp_path: Path, mechanism: str) -> None:
    dovecot = server(servers, mechanism)
    account = dovecot.new_account()
    token = servers.endpoint.issue(account.user)
    account.append(b"Subject: hello\r\n\r\n1. e4\r\n", datetime(2026, 5, 1, tzinfo=UTC))

    with Mailbox(imap(account, token_command(tmp_path, token))) as box:
        assert len(box.pending_uids()) == 1  # the mailbox is the account's own

    assert token in servers.endpoint.asked  # Dovecot asked the endpoint about it
    assert last_login_method(dovecot, account.user) == mechanism


@pytest.mark.parametrize("mechanism", ["OAUTHBEARER", "XOAUTH2"])
def test_a_refused_token_is_one_line_naming_the_setting(
        servers: OAuthServers, tmp_path: Path, mechanism: str) -> None:
    dovecot = server(servers, mechanism)
    account = dovecot.new_account()
    expired = servers.endpoint.issue(account.user)
    servers.endpoint.revoke(expired)
    with pytest.raises(ImapAuthError) as info:
        Mailbox(imap(account, token_command(tmp_path, expired))).connect()
    text = str(info.value)
    assert "\n" not in text
    assert f"IMAP login refused for {account.user!r}" in text
    assert "imap.oauth2_command" in text and mechanism in text and "still valid" in text
    assert expired not in text  # a token is a password: never printed


def test_a_token_for_another_mailbox_is_refused(servers: OAuthServers, tmp_path: Path) -> None:
    dovecot = server(servers, "OAUTHBEARER")
    account = dovecot.new_account()
    other = servers.endpoint.issue("someone-else")
    with pytest.raises(ImapAuthError, match=r"imap\.oauth2_command"):
        Mailbox(imap(account, token_command(tmp_path, other))).connect()


@pytest.mark.parametrize(("command", "said"), [
    ("sh -c 'echo \"invalid_grant: refresh token expired\" >&2; exit 1'",
     "imap.oauth2_command: sh failed (exit 1): invalid_grant: refresh token expired"),
    ("/nonexistent/mail-token imap", "imap.oauth2_command: command not found: "
                                     "/nonexistent/mail-token"),
    ("true", "imap.oauth2_command: true printed no token"),
    ("sh -c 'echo unclosed", "imap.oauth2_command: cannot read the command"),
])
def test_a_failing_token_command_is_one_clear_line(
        servers: OAuthServers, command: str, said: str) -> None:
    account = server(servers, "OAUTHBEARER").new_account()
    with pytest.raises(ImapAuthError) as info:
        Mailbox(imap(account, command)).connect()
    assert said in str(info.value) and "\n" not in str(info.value)


def smtp(dovecot: Dovecot, user: str, command: str) -> SmtpConfig:
    assert dovecot.submission_port is not None
    return SmtpConfig(host=dovecot.host, port=dovecot.submission_port, user=user,
                      password="", tls="none", timeout=10, oauth2_command=command)


@pytest.mark.parametrize("mechanism", ["OAUTHBEARER", "XOAUTH2"])
def test_smtp_sends_with_the_token_and_refuses_a_wrong_one(
        servers: OAuthServers, tmp_path: Path, mechanism: str) -> None:
    dovecot = server(servers, mechanism)
    user = dovecot.new_account().user
    token = servers.endpoint.issue(user)
    raw = b"From: relay@club.example\r\nTo: b@example.org\r\nSubject: move\r\n\r\n1. e4\r\n"

    async def send(cfg: SmtpConfig) -> str:
        async with SmtpSender(cfg) as sender:
            return (await sender.send("relay@club.example", "b@example.org", raw)).status

    servers.sink.clear()
    assert asyncio.run(send(smtp(dovecot, user, token_command(tmp_path, token)))) == "ok"
    [got] = servers.sink.wait_for(1)
    assert got.rcpt_tos == ["b@example.org"] and got.raw.endswith(raw)
    assert last_login_method(dovecot, user, "submission-login") == mechanism

    servers.endpoint.revoke(token)
    with pytest.raises(aiosmtplib.SMTPAuthenticationError) as info:
        asyncio.run(send(smtp(dovecot, user, token_command(tmp_path, token))))
    text = info.value.message
    assert text.startswith(f"SMTP login refused for {user!r} with the access token from "
                           f"smtp.oauth2_command ({mechanism}): 535")
    assert "\n" not in text and token not in text


# --- a TLS mode that does not fit the port (issue 28 item 4) ----------------------------

def test_imap_ssl_against_a_plain_port_says_to_use_starttls(imap_account: Account) -> None:
    settings = ImapSettings(imap_account.host, imap_account.port, imap_account.user,
                            imap_account.password, tls="ssl", timeout=5)
    with pytest.raises(ImapError) as info:
        Mailbox(settings).connect()
    assert str(info.value) == (
        f"IMAP connect to 127.0.0.1:{imap_account.port} failed: 127.0.0.1 port "
        f"{imap_account.port} answers in plain text, not TLS: set imap.tls = \"starttls\" "
        "(or \"none\" on a trusted network)")


@pytest.mark.parametrize("tls", ["none", "starttls"])
def test_imap_plain_against_an_implicit_tls_port_says_to_use_ssl(
        servers: OAuthServers, tls: str) -> None:
    dovecot = server(servers, "OAUTHBEARER")
    assert dovecot.imaps_port is not None
    settings = ImapSettings(dovecot.host, dovecot.imaps_port, "u", "p", tls=tls, timeout=2)
    with pytest.raises(ImapError) as info:
        Mailbox(settings).connect()
    assert str(info.value).endswith(f"127.0.0.1 port {dovecot.imaps_port} expects TLS from "
                                    "the first byte: set imap.tls = \"ssl\"")


def test_smtp_ssl_against_a_plain_port_says_to_use_starttls(smtp_sink: SmtpSink) -> None:
    cfg = SmtpConfig(host=smtp_sink.host, port=smtp_sink.port, user="", password="",
                     tls="ssl", timeout=5)

    async def connect() -> None:
        async with SmtpSender(cfg):
            pass

    with pytest.raises(aiosmtplib.SMTPConnectError) as info:
        asyncio.run(connect())
    assert info.value.message == (
        f"127.0.0.1 port {smtp_sink.port} answers in plain text, not TLS: set smtp.tls = "
        "\"starttls\" (or \"none\" on a trusted network)")


def test_a_port_that_answers_nothing_gets_no_tls_hint() -> None:
    """A server that is simply down is not a TLS mistake: no hint, the plain error."""
    settings = ImapSettings("127.0.0.1", free_port(), "u", "p", tls="ssl", timeout=2)
    with pytest.raises(ImapError) as info:
        Mailbox(settings).connect()
    assert "IMAP connect to 127.0.0.1" in str(info.value)
    assert "set imap.tls" not in str(info.value)
