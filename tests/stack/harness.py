"""The compose stack, built and run here (issue 28): the pieces the stack test needs around it.

- :func:`ensure_base_image`: no image registry is reachable, Debian's packages are, so the
  ``debian:12-slim`` every Dockerfile starts ``FROM`` is made with ``debootstrap`` and
  ``docker import`` (unless the daemon has one already).
- :func:`loopback_compose`: ``docker-compose.yml`` as a club runs it, with every service on
  the host's network and on loopback ports of its own (the daemon here runs without a
  bridge or iptables, and nothing may clash with the host's PostgreSQL on 5432, with
  other tests' servers or with another stack test run: :data:`PORTS`, chosen per run),
  its images tagged with the run's :data:`PROJECT` (another run, maybe of other code,
  builds its own). Written from the real file each run, so it follows every change;
  Compose v1 cannot drop a list key in an override file, hence a derived file, not an
  override.
- :class:`DnsStub`: the DNS the stack's milters ask (a ``resolv.conf`` mounted into them):
  the sending domain's DKIM key, SPF and DMARC records.
- :class:`RelayHost`: the provider's submission service the stack relays through
  (``RELAYHOST``): STARTTLS and a password required, as a provider's; it keeps what it gets.
- :class:`StackLog`: the log with timings (docs/stack-test.log is one real run's).
"""

from __future__ import annotations

import copy
import os
import random
import shutil
import socket
import ssl
import struct
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from tests.stack import ports

ROOT = Path(__file__).resolve().parents[2]
BASE_IMAGE = "debian:12-slim"
DEBIAN_MIRROR = "http://deb.debian.org/debian"
# This run's compose project (scripts/stack_test.sh names it, one per run): its containers,
# volumes and image tags are its own, so another run beside it neither meets nor removes them
PROJECT = os.environ.get("RELAYBOT_STACK_PROJECT") or f"relaybot-stacktest-{os.getpid()}"

MAIL_DOMAIN = "club.test"
MAIL_HOSTNAME = "mx.club.test"
# the stack's services, each on a loopback port of its own (their names resolve to
# 127.0.0.1), and the DNS stub's address: as scripts/stack_test.sh reserved them for this
# run, else free ones (tests/stack/ports.py)
_rng = random.Random()
PORTS = ports.choose_ports(ports.parse_ports(os.environ.get("RELAYBOT_STACK_PORTS", "")),
                           (), _rng)
DNS_ADDRESS = os.environ.get("RELAYBOT_STACK_DNS") or ports.choose_dns((), _rng)
SERVICE_NAMES = ("postgres", "dovecot", "opendkim", "opendmarc", "postfix")
# The member's mail server: another loopback address than the stack's own 127.0.0.1, which
# OpenDMARC skips and OpenDKIM signs for (their loopback-only trust, docs/deploy.md); only
# a source address (any port), so runs side by side share it
CLIENT_ADDRESS = "127.0.0.2"
SECRETS = {"POSTGRES_PASSWORD": "stack-test-postgres", "RELAY_IMAP_PASSWORD": "stack-test-imap",
           "RELAYHOST_USER": "club-account", "RELAYHOST_PASSWORD": "relay-host-secret"}


class StackLog:
    """One line per step, with the seconds since the start and since the step before."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.start = self.last = time.monotonic()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("w", encoding="utf-8")

    def __call__(self, what: str, detail: str = "") -> None:
        now = time.monotonic()
        line = f"[{now - self.start:7.1f}s] (+{now - self.last:5.1f}s) {what}"
        if detail:
            line += "\n" + "\n".join("            " + d for d in detail.splitlines())
        self.last = now
        print(line, flush=True)
        self._file.write(line + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def run(args: Sequence[str | Path], *, timeout: float = 900, check: bool = True,
        input: bytes | None = None, env: dict[str, str] | None = None,
        ) -> subprocess.CompletedProcess[str]:
    """A command's output as text; a failure raises with its last output."""
    proc = subprocess.run([str(a) for a in args], capture_output=True, timeout=timeout,
                          input=input, env=env)
    out = subprocess.CompletedProcess(proc.args, proc.returncode,
                                      proc.stdout.decode("utf-8", "replace"),
                                      proc.stderr.decode("utf-8", "replace"))
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, args))} failed ({proc.returncode}):\n"
                             f"{out.stdout[-4000:]}\n{out.stderr[-4000:]}")
    return out


def ensure_base_image(log: StackLog) -> None:
    """``debian:12-slim`` from Debian's own packages, unless the daemon has it already."""
    if run(["docker", "image", "inspect", BASE_IMAGE], check=False).returncode == 0:
        log(f"base image {BASE_IMAGE}: already here")
        return
    with tempfile.TemporaryDirectory(prefix="relaybot-rootfs-", dir="/var/tmp") as tmp:
        root = Path(tmp) / "rootfs"
        run(["debootstrap", "--variant=minbase", "bookworm", root, DEBIAN_MIRROR], timeout=1200)
        # The site's own certificate authorities (say a TLS-inspecting proxy's): the images'
        # ca-certificates takes them in, so their builds reach PyPI as this host does.
        local_cas = Path("/usr/local/share/ca-certificates")
        if local_cas.is_dir():
            shutil.copytree(local_cas, root / "usr/local/share/ca-certificates",
                            dirs_exist_ok=True)
        # each Dockerfile runs apt-get update itself
        for cache in ("var/lib/apt/lists", "var/cache/apt/archives"):
            for item in (root / cache).glob("*"):
                if item.is_file():
                    item.unlink()
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        imported = subprocess.run(["docker", "import", "--change", 'CMD ["bash"]', "-",
                                   BASE_IMAGE], stdin=tar.stdout, capture_output=True,
                                  timeout=600)
        tar.wait()
        assert imported.returncode == 0 and tar.returncode == 0, imported.stderr
    log(f"base image {BASE_IMAGE}: debootstrap bookworm from {DEBIAN_MIRROR}, docker import")


def compose_command() -> list[str]:
    """Compose v2 (the docker CLI plugin) where there is one, else Debian's docker-compose
    (v1, 1.29), which reads the same file."""
    if run(["docker", "compose", "version"], check=False).returncode == 0:
        return ["docker", "compose"]
    return ["docker-compose"]


def stack_environment(work: Path) -> dict[str, str]:
    """What a club's ``.env`` says (deploy/env.example), for the test's domain."""
    return {
        "MAIL_DOMAIN": MAIL_DOMAIN, "MAIL_HOSTNAME": MAIL_HOSTNAME, "AUTHSERV_ID": MAIL_HOSTNAME,
        "DKIM_SELECTOR": "relaybot", "TLS_DIR": str(work / "tls"),
        "RELAYHOST": f"[127.0.0.1]:{PORTS['relayhost']}", "TD_ADDRESS": "td@td.test",
        "CLUB_NAME": "Stack Test Club", "CLUB_SITE": "Stack Test",
        "WEB_BASE_URL": f"http://127.0.0.1:{PORTS['web']}", "BOT_LANGUAGE": "en",
        **SECRETS,
    }


def loopback_compose(work: Path) -> Path:
    """docker-compose.yml with every service on the host's network, on loopback ports."""
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text("utf-8"))
    data.pop("networks", None)
    resolv = work / "resolv.conf"
    resolv.write_text(f"nameserver {DNS_ADDRESS}\noptions attempts:2 timeout:2\n")
    p = PORTS
    db_url = (f"postgresql+psycopg://relaybot:{SECRETS['POSTGRES_PASSWORD']}@postgres:"
              f"{p['postgres']}/relaybot")
    env_for = {
        "postgres": {"PGPORT": str(p["postgres"]), "POSTGRES_LISTEN": "127.0.0.1"},
        "dovecot": {"DOVECOT_LISTEN": "127.0.0.1", "LMTP_PORT": str(p["lmtp"]),
                    "IMAP_PORT": str(p["imap"]),
                    # relaybot-run's wake listener, on loopback here (its fixed address
                    # on the compose network there)
                    "RELAYBOT_WAKE_URL": f"http://127.0.0.1:{p['wake']}/wake"},
        "opendkim": {"MILTER_SOCKET": f"inet:{p['opendkim']}@127.0.0.1",
                     "MAIL_NETWORK": "127.0.0.1/32"},
        "opendmarc": {"MILTER_SOCKET": f"inet:{p['opendmarc']}@127.0.0.1"},
        "postfix": {"SMTP_PORT": str(p["smtp"]), "SUBMISSION_PORT": str(p["submission"]),
                    "INET_INTERFACES": "127.0.0.1", "MAIL_NETWORK": "127.0.0.1/32",
                    # Postfix looks these up in the DNS, not /etc/hosts (lmtp_host_lookup):
                    # on the compose network Docker's DNS has the names, here none has
                    "LMTP_ADDRESS": f"127.0.0.1:{p['lmtp']}",
                    "OPENDKIM_MILTER": f"127.0.0.1:{p['opendkim']}",
                    "OPENDMARC_MILTER": f"127.0.0.1:{p['opendmarc']}"},
    }
    relaybot_env = {"RELAYBOT_DATABASE_URL": db_url, "RELAYBOT_IMAP_PORT": str(p["imap"]),
                    "RELAYBOT_SMTP_PORT": str(p["submission"]),
                    "RELAYBOT_IMAP_WAKE_LISTEN": f"127.0.0.1:{p['wake']}"}
    health_ports = {"/143": f"/{p['imap']}", "/8891": f"/{p['opendkim']}",
                    "/8893": f"/{p['opendmarc']}", "127.0.0.1:8080": f"127.0.0.1:{p['web']}"}
    for name, service in list(data["services"].items()):
        service = copy.deepcopy(service)  # the relaybot services share one anchor
        data["services"][name] = service
        service.pop("networks", None)
        service.pop("ports", None)
        service.pop("hostname", None)  # the host's network: the host's name (main.cf has ours)
        service["network_mode"] = "host"
        service["extra_hosts"] = [f"{host}:127.0.0.1" for host in SERVICE_NAMES]
        if "image" in service:  # relaybot/dovecot:local -> relaybot/dovecot:<PROJECT>
            service["image"] = f"{service['image'].rpartition(':')[0]}:{PROJECT}"
        build = service.get("build")
        if build is not None:
            build = {"context": build} if isinstance(build, str) else build
            build["context"] = str((ROOT / build["context"]).resolve())
            build["network"] = "host"  # the daemon has no bridge: apt-get and pip need a way out
            service["build"] = build
        environment = service.setdefault("environment", {})
        environment.update(env_for.get(name, {}))
        if name.startswith("relaybot"):
            environment.update(relaybot_env)
        if name in ("opendkim", "opendmarc"):
            service.setdefault("volumes", []).append(f"{resolv}:/etc/resolv.conf:ro")
        if name == "relaybot-web":
            service["command"] = ["web", "--host", "127.0.0.1", "--port", str(p["web"])]
        health = service.get("healthcheck")
        if health is not None:
            test = []
            for word in health["test"]:
                for old, new in health_ports.items():
                    word = word.replace(old, new)
                test.append(word)
            health["test"] = test
            # a club's checks run every 10-60 s; the test need not wait that long to start
            health["interval"] = "2s"
            health.pop("start_period", None)
            health["retries"] = 30
        volumes = service.get("volumes", [])
        service["volumes"] = [v.replace("${TLS_DIR:-./tls}", str(work / "tls")) for v in volumes]
    out = work / "compose.loopback.yml"
    out.write_text("# written by tests/stack/harness.py from docker-compose.yml\n"
                   + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return out


class DnsStub:
    """A DNS server on ``DNS_ADDRESS``:53 answering TXT queries from ``records`` (name ->
    strings) and NXDOMAIN for every other name: all the milters look up."""

    def __init__(self, records: dict[str, list[str]]) -> None:
        self.records = {name.lower().rstrip("."): texts for name, texts in records.items()}
        self.asked: list[str] = []
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._sock.bind((DNS_ADDRESS, 53))
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                query, peer = self._sock.recvfrom(4096)
            except OSError:
                return
            try:
                self._sock.sendto(self.answer(query), peer)
            except (IndexError, struct.error, OSError):
                continue

    def answer(self, query: bytes) -> bytes:
        """The reply to one query (one question; any EDNS record is left unanswered)."""
        ident, flags = struct.unpack(">HH", query[:4])
        at, labels = 12, []
        while query[at]:
            length = query[at]
            labels.append(query[at + 1:at + 1 + length].decode("ascii", "replace").lower())
            at += 1 + length
        qtype = struct.unpack(">H", query[at + 1:at + 3])[0]
        question = query[12:at + 5]
        name = ".".join(labels)
        self.asked.append(f"{name}/{qtype}")
        texts = self.records.get(name, []) if qtype == 16 else []
        answers = b""
        for text in texts:
            raw = text.encode("ascii")
            rdata = b"".join(bytes([len(raw[i:i + 255])]) + raw[i:i + 255]
                             for i in range(0, len(raw), 255))
            answers += b"\xc0\x0c" + struct.pack(">HHIH", 16, 1, 60, len(rdata)) + rdata
        rcode = 0 if name in self.records else 3
        reply_flags = 0x8000 | 0x0400 | (flags & 0x0100) | rcode  # answer, authoritative, RD
        return struct.pack(">HHHHHH", ident, reply_flags, 1, len(texts), 0, 0) \
            + question + answers

    def close(self) -> None:
        self._sock.close()


class _Keeper:
    def __init__(self) -> None:
        self.mails: list[tuple[float, Envelope]] = []
        self.logins: list[str] = []

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.mails.append((time.monotonic(), envelope))
        return "250 2.0.0 queued"


class RelayHost:
    """The provider's submission service on loopback: STARTTLS first, then AUTH with the
    club's account, then mail, which it keeps (time received, envelope)."""

    def __init__(self, work: Path) -> None:
        cert, key = work / "relayhost.crt", work / "relayhost.key"
        run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
             "-subj", "/CN=smtp.provider.test", "-keyout", key, "-out", cert])
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        self.keeper = _Keeper()
        user, password = SECRETS["RELAYHOST_USER"], SECRETS["RELAYHOST_PASSWORD"]

        def authenticate(server: SMTP, session: Session, envelope: Envelope, mechanism: str,
                         data: Any) -> AuthResult:
            ok = (isinstance(data, LoginPassword) and data.login.decode() == user
                  and data.password.decode() == password)
            if ok:
                self.keeper.logins.append(f"{mechanism} {user} over "
                                          f"{'TLS' if session.ssl else 'plain'}")
            return AuthResult(success=ok)

        self._controller = Controller(
            self.keeper, hostname="127.0.0.1", port=PORTS["relayhost"],
            server_hostname="smtp.provider.test", tls_context=context, require_starttls=True,
            authenticator=authenticate, auth_required=True, auth_require_tls=True)
        self._controller.start()

    def wait_for(self, count: int, timeout: float) -> list[tuple[float, Envelope]]:
        """The first ``count`` mails, waiting up to ``timeout`` seconds for them."""
        deadline = time.monotonic() + timeout
        while len(self.keeper.mails) < count and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(self.keeper.mails) >= count, \
            f"the relay host got {len(self.keeper.mails)} mails, not {count}"
        return self.keeper.mails[:count]

    def wait_for_one(self, after: int, to: str, timeout: float) -> tuple[float, Envelope]:
        """The first mail to ``to`` among those after the first ``after``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for kept in self.keeper.mails[after:]:
                if to in kept[1].rcpt_tos:
                    return kept
            time.sleep(0.2)
        raise AssertionError(f"no mail to {to} reached the relay host in {timeout:.0f} s")

    def close(self) -> None:
        self._controller.stop()
