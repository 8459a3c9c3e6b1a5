"""The compose stack, proven here (issue 28): Debian's packages to images, a move mail in
through the stack's Postfix and out again, restarts and an upgrade that keep the data.

Run by ``scripts/stack_test.sh`` (which ``scripts/test.sh`` starts beside the rest of the
suite), where a Docker daemon can be started; it writes its log with timings to
``$RELAYBOT_STACK_LOG`` (docs/stack-test.log is a real run's). It is collected only there.
Each run has its own compose project, image tags, loopback ports and DNS stub address
(tests/stack/ports.py), so two runs on one machine do not clash.

The path of the move: the member's server (``127.0.0.2``, DKIM-signed for ``sender.test``,
whose key, SPF and DMARC records the :class:`~tests.stack.harness.DnsStub` serves) ->
Postfix (port 25's service) -> OpenDKIM and OpenDMARC -> Dovecot over LMTP -> ``relaybot
run`` over IMAP -> Postfix (the submission port) -> OpenDKIM signs -> the provider's relay
host (STARTTLS and a password) -> the opponent.
"""

from __future__ import annotations

import base64
import datetime
import email
import email.policy
import imaplib
import os
import re
import smtplib
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

import dkim
import pytest

from tests.stack import harness
from tests.stack.harness import (
    CLIENT_ADDRESS,
    MAIL_DOMAIN,
    MAIL_HOSTNAME,
    PORTS,
    PROJECT,
    ROOT,
    DnsStub,
    RelayHost,
    StackLog,
    run,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]

if os.environ.get("RELAYBOT_STACK_TEST") != "1":  # run only by scripts/stack_test.sh
    raise RuntimeError("the compose stack is tested by scripts/stack_test.sh, which starts "
                       "the Docker daemon (RELAYBOT_STACK_TEST=1)")

WHITE = ("Hayakawa, Ken", "ken@sender.test")
BLACK = ("Horie, Mei", "mei@other.test")
SENDER_SELECTOR = b"member2026"


class Stack:
    """The running stack: compose commands on the loopback file, with the club's .env."""

    def __init__(self, work: Path, log: StackLog) -> None:
        self.work = work
        self.log = log
        (work / "tls").mkdir(exist_ok=True)
        self.file = harness.loopback_compose(work)
        self.env = {**os.environ, **harness.stack_environment(work)}
        self.compose = [*harness.compose_command(), "-p", PROJECT, "-f", str(self.file),
                        "--project-directory", str(ROOT)]

    def __call__(self, *args: str, timeout: float = 900, check: bool = True,
                 ) -> str:
        return run([*self.compose, *args], env=self.env, timeout=timeout, check=check).stdout

    def relaybot(self, *args: str) -> str:
        """The relaybot CLI inside the running ``relaybot run`` container."""
        return self("exec", "-T", "relaybot-run", "relaybot", *args)

    def up(self) -> None:
        self("up", "-d", timeout=600)
        wait_for(lambda: http_get("/").startswith("200"), 120, "relaybot web answers")


def http_get(path: str) -> str:
    """``"<status> <body>"`` of a page of relaybot web, or the error."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{PORTS['web']}{path}", timeout=5) as r:
            return f"{r.status} {r.read().decode('utf-8', 'replace')}"
    except OSError as exc:
        return f"error {exc}"


def wait_for(check: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.5)
    raise AssertionError(f"waited {timeout:.0f} s: {what}")


def dkim_verified(raw: bytes, records: dict[str, str]) -> bool:
    """Whether the mail's DKIM signature verifies against the given DNS TXT records."""
    def lookup(name: bytes, timeout: int = 5) -> bytes | None:
        found = records.get(name.decode().rstrip("."))
        return found.encode() if found is not None else None

    return bool(dkim.verify(raw, dnsfunc=lookup))


@pytest.fixture(scope="module")
def log() -> Iterator[StackLog]:
    path = Path(os.environ.get("RELAYBOT_STACK_LOG", str(ROOT / "build" / "stack-test.log")))
    stack_log = StackLog(path)
    yield stack_log
    stack_log.close()


@pytest.fixture(scope="module")
def sender_key(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, str]:
    """The member's domain's DKIM key: PEM, and its DNS record (1024 bits keeps the TXT
    answer within one UDP packet, as the stub sends it)."""
    key = tmp_path_factory.mktemp("dkim") / "sender.pem"
    run(["openssl", "genrsa", "-out", key, "1024"])
    public = subprocess.run(["openssl", "rsa", "-in", str(key), "-pubout", "-outform", "DER"],
                            capture_output=True, check=True).stdout
    return key.read_bytes(), "v=DKIM1; k=rsa; p=" + base64.b64encode(public).decode()


def test_the_stack_relays_a_move_and_keeps_its_data(
        log: StackLog, sender_key: tuple[bytes, str], tmp_path_factory: pytest.TempPathFactory,
) -> None:
    work = tmp_path_factory.mktemp("stack")
    stack = Stack(work, log)
    log("compose: " + stack("version").splitlines()[0])
    stack("down", "-v", "--remove-orphans", check=False)  # a previous run's leftovers

    harness.ensure_base_image(log)
    # Compose v1 builds one image after the other unless told (v2 builds them together)
    stack("build", *(["--parallel"] if stack.compose[0] == "docker-compose" else []),
          timeout=1800)
    images = run(["docker", "images", "--format", "{{.Repository}}:{{.Tag}} {{.Size}}",
                  f"relaybot/*:{PROJECT}"]).stdout.strip()
    log("images built", images)
    assert len(images.splitlines()) == 6, images

    pem, dns_record = sender_key
    dns = DnsStub({
        f"{SENDER_SELECTOR.decode()}._domainkey.sender.test": [dns_record],
        "sender.test": [f"v=spf1 ip4:{CLIENT_ADDRESS} -all"],
        "_dmarc.sender.test": ["v=DMARC1; p=reject; adkim=s; aspf=s"],
    })
    relay_host = RelayHost(work)
    try:
        stack.up()
        log("stack up: " + ", ".join(
            line.split()[0] for line in stack("ps").splitlines()[2:] if line.strip()))
        club_key = stack("exec", "-T", "opendkim", "cat", "/etc/opendkim/keys/relaybot.txt")
        club_record = "".join(re.findall(r'"([^"]*)"', club_key))
        assert "p=" in club_record, club_key
        records = {"relaybot._domainkey." + MAIL_DOMAIN: club_record}

        # The club's two members and their game: the start mails leave through Postfix,
        # signed by OpenDKIM, to the provider's relay host
        stack.relaybot("member", "add", "--name", WHITE[0], "--email", WHITE[1], "--lang", "ja")
        stack.relaybot("member", "add", "--name", BLACK[0], "--email", BLACK[1], "--lang", "en")
        game_id = stack.relaybot("game", "new", "--white", WHITE[1], "--black", BLACK[1]
                                 ).splitlines()[0].strip()
        started = relay_host.wait_for(2, 120)
        log(f"game {game_id}: the two start mails reached the relay host",
            "\n".join(f"to {env.rcpt_tos}" for _, env in started)
            + "\nrelay host: " + "; ".join(relay_host.keeper.logins[:1]))
        for _, envelope in started:
            assert dkim_verified(envelope.original_content or b"", records)
        assert relay_host.keeper.logins and "TLS" in relay_host.keeper.logins[0]
        start_to_white = next(email.message_from_bytes(e.original_content or b"",
                                                       policy=email.policy.default)
                              for _, e in started if WHITE[1] in e.rcpt_tos)
        assert "Stack Test Club" in str(start_to_white["From"])

        # White's move, from White's own mail server, signed for sender.test
        move = EmailMessage()
        move["From"] = f"Ken Hayakawa <{WHITE[1]}>"
        move["To"] = f"relay+{game_id}@{MAIL_DOMAIN}"
        move["Subject"] = "Re: " + str(start_to_white["Subject"])
        move["Date"] = format_datetime(datetime.datetime.now().astimezone())
        move["Message-ID"] = make_msgid(domain="sender.test")
        move.set_content("1. e4\n")
        raw = move.as_bytes(policy=email.policy.SMTP)
        signature = dkim.sign(raw, SENDER_SELECTOR, b"sender.test", pem,
                              include_headers=[b"From", b"To", b"Subject", b"Date",
                                               b"Message-ID"])
        sent_at = time.monotonic()
        with smtplib.SMTP("127.0.0.1", PORTS["smtp"], local_hostname="mail.sender.test",
                          source_address=(CLIENT_ADDRESS, 0), timeout=30) as client:
            client.sendmail(WHITE[1], [f"relay+{game_id}@{MAIL_DOMAIN}"], signature + raw)
        log(f"move 1. e4 sent into the stack's Postfix from {CLIENT_ADDRESS} as {WHITE[1]}, "
            "DKIM-signed (d=sender.test)")

        arrived, envelope = relay_host.wait_for_one(2, BLACK[1], 120)
        forward = envelope.original_content or b""
        assert "e4" in forward.decode("utf-8", "replace")
        assert dkim_verified(forward, records)
        log(f"the forward reached the relay host {arrived - sent_at:.1f} s after the move was "
            "sent: Postfix -> OpenDKIM/OpenDMARC -> Dovecot (LMTP) -> relaybot run (IMAP) -> "
            "Postfix (submission) -> OpenDKIM signed -> relay host (STARTTLS, AUTH)",
            "DKIM-Signature of the forward verifies: "
            + re.sub(r"\s+", " ", str(email.message_from_bytes(forward)["DKIM-Signature"])
                     )[:110] + "...")
        # Dovecot's push reached relaybot-run (Dovecot logs a warning for each one that
        # did not), so the move did not wait for IDLE's notice
        assert "listening for the mail server's wake-up" in stack("logs", "relaybot-run")
        dovecot_log = stack("logs", "dovecot")
        assert "relaybot wake:" not in dovecot_log, dovecot_log[-2000:]
        log("Dovecot's push woke relaybot run (no failed wake in Dovecot's log)")

        # What the stack wrote on the move as it arrived: the one header relaybot trusts
        imap = imaplib.IMAP4("127.0.0.1", PORTS["imap"])
        imap.login(f"relay@{MAIL_DOMAIN}", harness.SECRETS["RELAY_IMAP_PASSWORD"])
        imap.select("Processed", readonly=True)
        _, found = imap.search(None, "FROM", WHITE[1])
        _, fetched = imap.fetch(found[0].split()[-1], "(BODY.PEEK[HEADER])")
        imap.logout()
        header = email.message_from_bytes(fetched[0][1])  # type: ignore[index]
        results = [re.sub(r"\s+", " ", str(h)) for h in header.get_all("Authentication-Results")]
        log("in Dovecot (Processed), the move carries", "\n".join(results))
        ours = [r for r in results if r.startswith(MAIL_HOSTNAME + ";")]
        # DMARC passes on SPF, aligned with From. Debian's OpenDKIM resolves with libunbound,
        # which has not been made to ask the test's DNS stub yet: its verdict on the member's
        # signature is "key not found in DNS" here (docs/stack-test.log), not pass.
        assert ours and "dmarc=pass" in ours[0] and "spf=pass" in " ".join(ours), results
        assert any(r.startswith("dkim." + MAIL_HOSTNAME + "; dkim=") for r in results), results

        record = http_get(f"/games/{game_id}/record")
        assert record.startswith("200") and "e4" in record, record[:300]
        log(f"relaybot web: /games/{game_id}/record has 1. e4")

        # Restart: everything down, volumes kept, up again
        stack("down", timeout=300)
        stack.up()
        shown = stack.relaybot("game", "show", game_id)
        assert "record: 1. e4" in shown, shown
        log("restarted (down, up): the game and its move are still there")

        # Upgrade: relaybot init on the old database and an older relaybot.toml, as every
        # start runs it (docs/deploy.md, Upgrades); the config loses a section to get back
        config = stack("exec", "-T", "relaybot-run", "cat", "/var/lib/relaybot/relaybot.toml")
        secret = re.search(r'^secret = "([^"]+)"', config, re.MULTILINE)
        assert secret is not None and "[log]" in config, config
        trimmed = re.sub(r"^\[log\]\n(?:[^\[\n].*\n|\n)*", "", config, flags=re.MULTILINE)
        run([*stack.compose, "exec", "-T", "relaybot-run", "sh", "-c",
             "cat > /var/lib/relaybot/relaybot.toml"], env=stack.env, input=trimmed.encode())
        stack("build", timeout=900)
        stack("up", "-d", "--force-recreate", timeout=600)
        wait_for(lambda: http_get("/").startswith("200"), 120, "relaybot web answers again")
        init_log = stack("logs", "--no-color", "relaybot-init")
        config = stack("exec", "-T", "relaybot-run", "cat", "/var/lib/relaybot/relaybot.toml")
        assert "[log]" in config and f'secret = "{secret.group(1)}"' in config, config
        assert "record: 1. e4" in stack.relaybot("game", "show", game_id)
        log("upgraded (build, up --force-recreate: relaybot init on the old database and a "
            "relaybot.toml without [log]): the game, the move and the [bot] secret kept, "
            "[log] added back", "\n".join(init_log.strip().splitlines()[-4:]))
    finally:
        relay_host.close()
        dns.close()
        # the services' own logs, for a run that failed (build/stack-test.compose.log)
        log.path.with_suffix(".compose.log").write_text(
            stack("logs", "--no-color", "--tail", "200", check=False), encoding="utf-8")
        stack("down", "-v", "--remove-orphans", timeout=300, check=False)
        log("stack down, volumes removed", "DNS queries answered: " + " ".join(dns.asked))
