"""A real Dovecot IMAP server on loopback, configured from a temp dir, for integration tests.

Usage::

    with Dovecot() as server:
        account = server.new_account()
        uid = account.append(raw, internaldate)

Any user name logs in with :data:`PASSWORD` (static passdb), so every test takes a fresh
user name from :meth:`Dovecot.new_account` and gets an empty mailbox of its own.

Pitfalls this module works around (Dovecot 2.3 on Debian 12; 2.4 config is best effort):

- Dovecot refuses to access mail as uid 0, so the static userdb uses the uid/gid of the
  system user ``vmail`` (created with ``useradd --system`` if missing); ``first_valid_uid``
  is lowered because a system uid is below the default of 500.
- The auth and login processes run as ``dovecot``/``dovenull``, so the temp dir is 0755
  (pytest's ``tmp_path`` is 0700 and would not do); the mail homes are owned by ``vmail``.
- ``base_dir``, ``state_dir``, ``instance_name`` and the logs live in the temp dir, so no
  pid file or socket clashes with a system Dovecot or another test run.
- Plaintext LOGIN without TLS needs ``ssl = no`` plus ``disable_plaintext_auth = no``
  (2.3) or ``auth_allow_cleartext = yes`` (2.4).
- A failed login delays later logins from the same IP (``auth_failure_delay`` and the
  anvil auth penalty); both are switched off so one wrong-password test costs nothing.
- Stopping only the master leaves its imap children serving open connections (and the
  log/stats helpers running), so :meth:`Dovecot.stop` signals the whole process group.
- A session sees mail delivered by another session only after a command syncs its view
  (FETCH/SEARCH/MOVE of a newer UID silently match nothing): relaybot's Mailbox sends
  NOOP before UID SEARCH and retries a missed FETCH/MOVE once after NOOP.
- IDLE notices new mail via inotify, with ``mailbox_idle_check_interval`` as the backstop
  (lowered to 1 s here so IDLE tests stay fast).
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from imapclient import IMAPClient  # type: ignore[import-untyped]

PASSWORD = "relaybot-test-password"
MAIL_USER = "vmail"
INSTALL_HINT = ("run .ci/install-system.sh as root (apt-get install dovecot-imapd dovecot-core "
                "dovecot-submissiond)")


class DovecotError(RuntimeError):
    """The test Dovecot could not be set up, started or driven."""


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port on *host* that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def find_binary(name: str) -> str:
    """Locate a Dovecot binary in PATH or the Debian sbin/bin dirs, or raise DovecotError."""
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin:/sbin:/bin")
    if found is None:
        raise DovecotError(f"{name!r} not found: {INSTALL_HINT}")
    return found


def dovecot_version(binary: str) -> tuple[int, int]:
    """Return (major, minor) of the Dovecot at *binary*, e.g. (2, 3)."""
    out = subprocess.run(
        [binary, "--version"], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    match = re.match(r"\s*(\d+)\.(\d+)", out)
    if match is None:
        raise DovecotError(f"cannot parse dovecot --version output: {out!r}")
    return int(match.group(1)), int(match.group(2))


def ensure_mail_user(name: str = MAIL_USER) -> tuple[int, int]:
    """Return uid, gid of the system user *name*, creating it (as root) if missing."""
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        if os.geteuid() != 0:
            raise DovecotError(
                f"system user {name!r} missing and not root to create it: {INSTALL_HINT}"
            ) from None
        useradd = shutil.which("useradd", path="/usr/sbin:/usr/bin:/sbin:/bin") or "useradd"
        subprocess.run(
            [
                useradd,
                "--system",
                "--user-group",
                "--no-create-home",
                "--home-dir",
                "/nonexistent",
                "--shell",
                "/usr/sbin/nologin",
                name,
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        entry = pwd.getpwnam(name)
    if entry.pw_uid == 0:
        raise DovecotError(f"system user {name!r} has uid 0; Dovecot refuses that")
    return entry.pw_uid, entry.pw_gid


def _config_23(root: Path, port: int, uid: int, gid: int) -> str:
    return f"""\
# relaybot test Dovecot (2.3 syntax), generated
protocols = imap
listen = 127.0.0.1
base_dir = {root}/run
state_dir = {root}/state
instance_name = relaybot-test-{port}
log_path = {root}/log/dovecot.log
info_log_path = {root}/log/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0 secs
first_valid_uid = 1
first_valid_gid = 1
mail_location = maildir:~/Maildir
mail_fsync = never
mailbox_idle_check_interval = 1 secs
namespace inbox {{
  inbox = yes
}}
passdb {{
  driver = static
  args = password={PASSWORD}
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/home/%u
}}
service anvil {{
  # mode 0 turns the per-IP auth penalty off: a test of a wrong password must not
  # slow down every later login from 127.0.0.1
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
"""


def _config_24(root: Path, port: int, uid: int, gid: int) -> str:
    # Untested here (Debian 12 ships 2.3); follows the 2.4 settings reference.
    return f"""\
# relaybot test Dovecot (2.4 syntax), generated
dovecot_config_version = 2.4.0
dovecot_storage_version = 2.4.0
protocols = imap
listen = 127.0.0.1
base_dir = {root}/run
state_dir = {root}/state
instance_name = relaybot-test-{port}
log_path = {root}/log/dovecot.log
info_log_path = {root}/log/dovecot.log
ssl = no
auth_allow_cleartext = yes
auth_mechanisms = plain login
auth_failure_delay = 0 secs
first_valid_uid = 1
first_valid_gid = 1
mail_driver = maildir
mail_path = ~/Maildir
mail_fsync = never
mailbox_idle_check_interval = 1 secs
namespace inbox {{
  inbox = yes
}}
passdb static {{
  password = {PASSWORD}
}}
userdb static {{
  fields {{
    uid = {uid}
    gid = {gid}
    home = {root}/home/%{{user}}
  }}
}}
service imap-login {{
  inet_listener imap {{
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
"""


def _extras_23(text: str, root: Path, introspection_url: str | None,
               mechanisms: tuple[str, ...], relay: tuple[str, int] | None,
               submission_port: int | None) -> str:
    """*text* (a 2.3 config) with the ``oauth2`` passdb checking tokens at
    *introspection_url* for *mechanisms* (XOAUTH2, OAUTHBEARER; passwords stay the static
    passdb's), and a submission service on *submission_port* relaying to *relay* (an
    SMTP sink)."""
    if introspection_url is not None:
        ext = root / "dovecot-oauth2.conf.ext"
        # post: the token goes in a form body, as RFC 7662 introspection wants it
        ext.write_text(f"introspection_url = {introspection_url}\n"
                       "introspection_mode = post\n"
                       "force_introspection = yes\n"
                       "username_attribute = email\n"
                       "active_attribute = active\n"
                       "active_value = true\n")
        ext.chmod(0o644)
        names = " ".join(mechanisms)
        text = text.replace("auth_mechanisms = plain login",
                            f"auth_mechanisms = plain login {names}")
        text = text.replace("passdb {\n  driver = static\n",
                            f"passdb {{\n  driver = oauth2\n  mechanisms = {names}\n"
                            f"  args = {ext}\n}}\npassdb {{\n  driver = static\n"
                            "  mechanisms = plain login\n")
    if relay is not None:
        text = text.replace("protocols = imap", "protocols = imap submission")
        text += f"""\
hostname = relaybot-test.localhost
submission_relay_host = {relay[0]}
submission_relay_port = {relay[1]}
submission_relay_ssl = no
service submission-login {{
  inet_listener submission {{
    address = 127.0.0.1
    port = {submission_port}
  }}
}}
"""
    return text


WAKE_SCRIPT = Path(__file__).resolve().parents[2] / "deploy" / "dovecot" / "relaybot-wake.lua"
"""The Lua script relaybot ships for Dovecot's push_notification plugin (the tests use it
as an operator would)."""


def _wake_23(text: str, root: Path, wake_url: str) -> str:
    """*text* with Dovecot's push_notification plugin (Lua driver) running the shipped
    :data:`WAKE_SCRIPT`, which POSTs to *wake_url* when mail lands in INBOX."""
    script = root / "relaybot-wake.lua"
    shutil.copyfile(WAKE_SCRIPT, script)
    script.chmod(0o644)
    return text + f"""\
mail_plugins = $mail_plugins mail_lua notify push_notification push_notification_lua
plugin {{
  push_notification_driver = lua:file={script}
  relaybot_wake_url = {wake_url}
}}
"""


def _tls_23(text: str, cert: tuple[Path, Path], imaps_port: int) -> str:
    """*text* with TLS on: STARTTLS on the plain port, implicit TLS on *imaps_port*
    (plain-text logins stay allowed, as the other tests log in without TLS)."""
    text = text.replace("\nssl = no\n",
                        f"\nssl = yes\nssl_cert = <{cert[0]}\nssl_key = <{cert[1]}\n", 1)
    return text.replace("  inet_listener imaps {\n    port = 0\n",
                        "  inet_listener imaps {\n    address = 127.0.0.1\n"
                        f"    port = {imaps_port}\n    ssl = yes\n")


def self_signed_cert(folder: Path) -> tuple[Path, Path]:
    """A throwaway certificate for 127.0.0.1 and its key (openssl), readable by Dovecot."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    for path in (cert, key):
        path.chmod(0o644)
    return cert, key


@dataclass(frozen=True)
class Account:
    """One mailbox on the test Dovecot; helpers open a short IMAP connection each."""

    host: str
    port: int
    user: str
    password: str
    server: Dovecot = field(repr=False, compare=False)

    @contextmanager
    def client(self, folder: str | None = "INBOX") -> Iterator[Any]:
        """Yield a logged-in IMAPClient (``normalise_times=False``), *folder* selected."""
        imap = IMAPClient(self.host, port=self.port, ssl=False, timeout=10)
        imap.normalise_times = False
        try:
            imap.login(self.user, self.password)
            if folder is not None:
                imap.select_folder(folder)
            yield imap
        finally:
            try:
                imap.logout()
            except Exception:
                with suppress(Exception):
                    imap.shutdown()

    def append(
        self,
        raw: bytes,
        internaldate: datetime,
        folder: str = "INBOX",
        flags: Iterable[str | bytes] = (),
    ) -> int:
        """APPEND *raw* with INTERNALDATE *internaldate* (aware); return its UID."""
        with self.client(None) as imap:
            if not imap.folder_exists(folder):
                imap.create_folder(folder)
            resp = imap.append(folder, raw, flags=tuple(flags), msg_time=internaldate)
        text = resp.decode() if isinstance(resp, bytes) else str(resp)
        match = re.search(r"APPENDUID \d+ (\d+)", text)
        if match is None:
            raise DovecotError(f"no APPENDUID in APPEND response {text!r}")
        return int(match.group(1))

    def uids(self, folder: str = "INBOX") -> list[int]:
        """All UIDs in *folder*, ascending."""
        with self.client(folder) as imap:
            return sorted(int(u) for u in imap.search(["ALL"]))

    def messages(self, folder: str = "INBOX") -> list[bytes]:
        """Raw bytes of every message in *folder*, in UID order (BODY.PEEK[])."""
        with self.client(folder) as imap:
            uids = sorted(imap.search(["ALL"]))
            if not uids:
                return []
            data = imap.fetch(uids, ["BODY.PEEK[]"])
            return [bytes(data[u][b"BODY[]"]) for u in uids]

    def flags(self, uid: int, folder: str = "INBOX") -> set[bytes]:
        """The flags of *uid* in *folder* (empty set if it is gone)."""
        with self.client(folder) as imap:
            data = imap.get_flags([uid])
            return {bytes(f) for f in data.get(uid, ())}

    def folders(self) -> list[str]:
        """Names of all folders of the account."""
        with self.client(None) as imap:
            return [str(name) for _flags, _delim, name in imap.list_folders()]

    def create_folder(self, folder: str) -> None:
        """Create *folder* if it does not exist."""
        with self.client(None) as imap:
            if not imap.folder_exists(folder):
                imap.create_folder(folder)

    def expunge(self, uid: int, folder: str = "INBOX") -> None:
        """As another client: flag *uid* \\Deleted and UID EXPUNGE it (T5)."""
        with self.client(folder) as imap:
            imap.delete_messages([uid])
            imap.uid_expunge([uid])

    def uidvalidity(self, folder: str = "INBOX") -> int:
        """Current UIDVALIDITY of *folder* (by IMAP STATUS)."""
        with self.client(None) as imap:
            return int(imap.folder_status(folder, [b"UIDVALIDITY"])[b"UIDVALIDITY"])

    def bump_uidvalidity(self, folder: str = "INBOX") -> int:
        """Give *folder* a new, larger UIDVALIDITY; return it (T4)."""
        return self.server.bump_uidvalidity(self.user, folder)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class Dovecot:
    """A Dovecot master process (``dovecot -F -c <conf>``) on 127.0.0.1, free port.

    The port and the temp dir stay the same across :meth:`stop` / :meth:`start` /
    :meth:`restart`, and so does the mail: a restart is a server crash/upgrade seen by
    clients (their connections are closed), not a new server.
    """

    host = "127.0.0.1"

    def __init__(
        self,
        root: Path | None = None,
        port: int | None = None,
        *,
        introspection_url: str | None = None,
        oauth2_mechanisms: tuple[str, ...] = ("xoauth2", "oauthbearer"),
        submission_relay: tuple[str, int] | None = None,
        tls_cert: tuple[Path, Path] | None = None,
        wake_url: str | None = None,
    ) -> None:
        self.binary = find_binary("dovecot")
        self.doveadm_binary = find_binary("doveadm")
        self.version = dovecot_version(self.binary)
        uid, gid = ensure_mail_user()
        self._owns_root = root is None
        self.root = Path(tempfile.mkdtemp(prefix="relaybot-dovecot-")) if root is None else root
        self.root.chmod(0o755)
        for sub in ("run", "state", "log"):
            (self.root / sub).mkdir(mode=0o755, exist_ok=True)
        home = self.root / "home"
        home.mkdir(mode=0o755, exist_ok=True)
        if os.geteuid() == 0:
            os.chown(home, uid, gid)
        self.port = port if port is not None else free_port(self.host)
        self.password = PASSWORD
        self.conf_path = self.root / "dovecot.conf"
        render = _config_24 if self.version >= (2, 4) else _config_23
        text = render(self.root, self.port, uid, gid)
        self.submission_port: int | None = None
        self.imaps_port: int | None = None
        if (introspection_url is not None or submission_relay is not None or tls_cert
                or wake_url is not None):
            if self.version >= (2, 4):
                raise DovecotError("the OAuth 2.0, submission, TLS and wake test servers are "
                                   "written in Dovecot 2.3 syntax; this is "
                                   f"{self.version[0]}.{self.version[1]}")
            if submission_relay is not None:
                self.submission_port = free_port(self.host)
            if tls_cert is not None:
                self.imaps_port = free_port(self.host)
            text = _extras_23(text, self.root, introspection_url, oauth2_mechanisms,
                              submission_relay, self.submission_port)
            if tls_cert is not None:
                text = _tls_23(text, tls_cert, self.imaps_port or 0)
            if wake_url is not None:
                text = _wake_23(text, self.root, wake_url)
        self.conf_path.write_text(text)
        self.conf_path.chmod(0o644)
        self._proc: subprocess.Popen[bytes] | None = None

    # -- lifecycle -------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while the master process is alive."""
        return self._proc is not None and self._proc.poll() is None

    def start(self, timeout: float = 20.0) -> None:
        """Start the master and wait until the IMAP port greets."""
        if self.running:
            return
        out = (self.root / "log" / "stdout.log").open("ab")
        try:
            self._proc = subprocess.Popen(
                [self.binary, "-F", "-c", str(self.conf_path)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            out.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise DovecotError(
                    f"dovecot exited with {self._proc.returncode} on start:\n{self.log()}"
                )
            if self._greets():
                return
            time.sleep(0.05)
        self.stop()
        raise DovecotError(f"dovecot not ready on port {self.port} after {timeout}s:\n{self.log()}")

    def _greets(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=1) as sock:
                return sock.recv(64).startswith(b"* OK")
        except OSError:
            return False

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the whole instance: every Dovecot process gets SIGTERM, stragglers SIGKILL.

        Signalling only the master is not enough: its imap, log and stats children
        outlive it and keep serving open connections. All of them share the process
        group the master was started in, so the group is signalled. Clients see
        ``* BYE`` and a closed connection.
        """
        proc, self._proc = self._proc, None
        if proc is None:
            return
        pgid = proc.pid  # start_new_session=True: the master leads its own group
        proc.send_signal(signal.SIGTERM)  # the master first: it takes ~1 s to shut down
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            _signal_group(pgid, signal.SIGKILL)
            proc.wait(timeout)
        _signal_group(pgid, signal.SIGTERM)  # imap children say BYE and exit
        time.sleep(0.1)
        # The log/stats helpers linger otherwise. (Their zombies may stay in the group
        # until init reaps them, so the group is not waited for; the port is.)
        _signal_group(pgid, signal.SIGKILL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._listening():
            time.sleep(0.02)

    def kick(self, user: str) -> None:
        """Disconnect every IMAP session of *user* (``doveadm kick``), server stays up."""
        self.doveadm("kick", user)

    def _listening(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=0.5):
                return True
        except OSError:
            return False

    def restart(self) -> None:
        """Stop and start again on the same port with the same mail (T3)."""
        self.stop()
        self.start()

    def close(self) -> None:
        """Stop and remove the temp dir (if this object created it)."""
        self.stop()
        if self._owns_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Dovecot:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- accounts and admin ----------------------------------------------------------

    def new_account(self, prefix: str = "user") -> Account:
        """A fresh user name (hence an empty mailbox) on this server."""
        user = f"{prefix}-{uuid.uuid4().hex[:12]}"
        return Account(self.host, self.port, user, self.password, server=self)

    def doveadm(self, *args: str) -> str:
        """Run ``doveadm -c <conf> ARGS`` against this instance; return stdout."""
        proc = subprocess.run(
            [self.doveadm_binary, "-c", str(self.conf_path), *args],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if proc.returncode != 0:
            raise DovecotError(f"doveadm {' '.join(args)} failed: {proc.stderr.strip()}")
        return proc.stdout

    def uidvalidity(self, user: str, folder: str = "INBOX") -> int:
        """UIDVALIDITY of *folder* of *user*, read by doveadm."""
        out = self.doveadm("mailbox", "status", "-u", user, "uidvalidity", folder)
        return int(out.strip().split("=")[-1])

    def bump_uidvalidity(self, user: str, folder: str = "INBOX") -> int:
        """Set a larger UIDVALIDITY on *folder* (``doveadm mailbox update``); return it.

        Sessions that have the folder selected are disconnected by Dovecot at their next
        command ("index reset, view is now inconsistent"); the mail stays, under the new
        UIDVALIDITY.
        """
        new = self.uidvalidity(user, folder) + 1
        self.doveadm("mailbox", "update", "-u", user, "--uid-validity", str(new), folder)
        return new

    def log(self, tail: int = 60) -> str:
        """The last *tail* lines of the Dovecot log and stdout (for error messages)."""
        lines: list[str] = []
        for name in ("stdout.log", "dovecot.log"):
            path = self.root / "log" / name
            if path.exists():
                lines += path.read_text(errors="replace").splitlines()[-tail:]
        return "\n".join(lines)
