"""The settings: every section and key with its default and kind (``SCHEMA``), and the
frozen dataclasses a loaded configuration is made of (``Config`` and one per section).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from relaybot.config.checks import WEEKDAYS, ConfigError, is_loopback, split_listen

# section -> key -> (default, kind); kind drives validation
SCHEMA: dict[str, dict[str, tuple[Any, str]]] = {
    "database": {"url": ("sqlite:///relaybot.db", "dburl")},
    "bot": {
        "address": ("relay@club.example", "address"),
        "timezone": ("Asia/Tokyo", "tz"),
        "language": ("ja", "lang"),
        "td": ("td@club.example", "address"),
        "name": ("relaybot", "str"),
        "site": ("", "str"),
        "error_reply_cap": (10, "int"),
        # reply tokens (INTERFACE.md "Who may act"): "" loads, but nothing that sends
        # mail runs without one (BotConfig.token_keys)
        "secret": ("", "str"),
        "secret_previous": ("", "str"),
        # the authserv-id of the operator's own MTA; "" trusts no Authentication-Results
        "authserv_id": ("", "str"),
    },
    "imap": {
        "host": ("127.0.0.1", "str"),
        "port": (143, "port"),
        "user": ("relay", "str"),
        "password": ("", "str"),
        "tls": ("none", "tls"),
        "folder": ("INBOX", "str"),
        # 0 would poll without pause, or download no mail at all: at least 1 ("positive")
        "poll_seconds": (60, "positive"),
        "max_size": (10 * 1024 * 1024, "positive"),
        # OAuth 2.0 (issue 28): a command printing an access token; "" logs in by password
        "oauth2_command": ("", "str"),
        # issue 29: HOST:PORT where `relaybot run` takes Dovecot's push (an HTTP POST from
        # deploy/dovecot/relaybot-wake.lua) and looks at once; "" listens nowhere
        "wake_listen": ("", "listen"),
    },
    "smtp": {
        "host": ("127.0.0.1", "str"),
        "port": (25, "port"),
        "user": ("", "str"),
        "password": ("", "str"),
        "tls": ("none", "tls"),
        "timeout": (60, "positive"),  # 0 would give up on every server at once
        "connections": (2, "count"),
        # AUTH sends the password; without TLS only to a loopback host, unless the
        # operator says so here (issue 12 item 11)
        "allow_plaintext_auth": (False, "bool"),
        "oauth2_command": ("", "str"),
    },
    "log": {
        "level": ("info", "level"),
        "format": ("text", "logformat"),
    },
    # issue 12 items 8 and 11: what one address's mail may cause in a day, and how long
    # mail that concerns no member is kept raw
    "mail": {
        "reply_cap": (20, "int"),
        "td_alert_cap": (30, "int"),
        "retention_days": (30, "int"),
        # issue 22 item 6: mail a sender who proved nothing can cause
        "unproven_address_cap": (3, "int"),
        "unproven_cap": (100, "int"),
    },
    # `relaybot web` (issue 15): its public URL for links in mail ("" = no links)
    "web": {"base_url": ("", "url")},
    # D1: the weekday the digest goes out, in each member's own time zone
    "digest": {"weekday": ("monday", "weekday")},
}


@dataclass(frozen=True)
class DatabaseConfig:
    url: str


@dataclass(frozen=True)
class BotConfig:
    address: str
    timezone: str
    language: str
    td: str
    name: str = "relaybot"  # the club's name: the From name of every mail, the web's title
    site: str = ""  # where the games are played, for records (PGN Site, SGF PC, KIF 場所)
    error_reply_cap: int = 10
    # Reply tokens (core/tokens.py). The previous key keeps verifying replies to mail
    # sent before a rotation until the operator clears it (30 days, INTERFACE.md).
    secret: str = field(default="", repr=False)
    secret_previous: str = field(default="", repr=False)
    authserv_id: str = ""

    @property
    def local(self) -> str:
        return self.address.split("@", 1)[0]

    @property
    def domain(self) -> str:
        return self.address.split("@", 1)[1]

    @property
    def record_site(self) -> str:
        """Where the games are played, as records write it: ``site``, else the club's
        name (never another club's: no record says JCCA unless the club says so)."""
        return self.site.strip() or self.name.strip()

    def game_address(self, game_id: str) -> str:
        """The plus address of one game, e.g. relay+k7m2qx@club.example."""
        return f"{self.local}+{game_id}@{self.domain}"

    def token_keys(self) -> tuple[str, ...]:
        """The keys reply tokens verify with: ``secret`` first, then ``secret_previous``.

        Raises :class:`ConfigError` without a ``secret``: mail without tokens could never
        be answered with authority, and a made-up key would be the same everywhere, so
        whatever sends mail stops here with one line instead (issue 12).
        """
        if not self.secret.strip():
            raise ConfigError(
                "bot.secret is not set: run `relaybot init` to add a random one "
                "(or set RELAYBOT_BOT_SECRET)")
        return self.verify_keys()

    def verify_keys(self) -> tuple[str, ...]:
        """The keys a token received is checked with (``secret``, ``secret_previous``);
        empty without any: then no token proves anything, and nothing raises, since a
        mail arriving must still be handled."""
        return tuple(k for k in (self.secret, self.secret_previous) if k)


@dataclass(frozen=True)
class ImapConfig:
    host: str
    port: int
    user: str
    password: str
    tls: str
    folder: str
    poll_seconds: int = 60
    max_size: int = 10 * 1024 * 1024
    # OAuth 2.0 (Gmail, Microsoft 365): the command that prints an access token, run
    # before every login (relaybot.mail.oauth); "" logs in with the password
    oauth2_command: str = ""
    # where `relaybot run` listens for the mail server's wake-up ("HOST:PORT", "" none):
    # a hint to poll now, so new mail is not left waiting for IDLE's notice
    wake_listen: str = ""

    def wake_address(self) -> tuple[str, int] | None:
        """``wake_listen`` as (host, port), None when it is "" (validated on load)."""
        return split_listen(self.wake_listen)


@dataclass(frozen=True)
class SmtpConfig:
    host: str
    port: int
    user: str
    password: str
    tls: str
    timeout: int = 60
    # SMTP connections used at once: while the server works on one mail the next goes out
    # on the other. A crash can then catch up to this many mails between 250 and
    # marked-sent, each resent once with its own Message-ID (G4); 1 for one at a time.
    connections: int = 2
    allow_plaintext_auth: bool = False
    oauth2_command: str = ""  # as ImapConfig.oauth2_command; needs ``user``

    def plaintext_auth_problem(self) -> str | None:
        """Why AUTH must not be tried with these settings, or None when it may.

        AUTH without TLS sends the password in the clear: that is allowed to a loopback
        host (a local MTA) only, or when ``allow_plaintext_auth`` is set on purpose.
        """
        if not self.user or self.tls != "none" or self.allow_plaintext_auth:
            return None
        if is_loopback(self.host):
            return None
        secret = "access token" if self.oauth2_command.strip() else "password"
        return (f"smtp.user is set but smtp.tls = \"none\": AUTH would send the {secret} "
                f"in the clear to {self.host}; use tls = \"starttls\" or \"ssl\", or set "
                f"smtp.allow_plaintext_auth = true (RELAYBOT_SMTP_ALLOW_PLAINTEXT_AUTH)")


@dataclass(frozen=True)
class LogConfig:
    """``[log]``: the level of relaybot's own lines and their form (text or JSON)."""

    level: str = "info"
    format: str = "text"


@dataclass(frozen=True)
class MailConfig:
    """Caps on what mail causes (issue 12 item 8) and retention (item 11)."""

    # replies a day to one address caused by its own mail: acks, status, help, error
    # replies, section replies, confirmation requests (error replies also count against
    # bot.error_reply_cap)
    reply_cap: int = 20
    # alerts a day to the TD; the rest of the day's go out the next day in one summary
    td_alert_cap: int = 30
    # strangers' and automated mail is kept raw this many days, then only its ledger line
    retention_days: int = 30
    # mail caused by a mail that proved no sender (confirmation requests, forgery notices,
    # status answers): at most this many a day to one address, and this many a day in
    # all; the rest is listed in the TD's next daily summary (issue 22 item 6)
    unproven_address_cap: int = 3
    unproven_cap: int = 100


@dataclass(frozen=True)
class WebConfig:
    # public URL of `relaybot web` without the trailing slash; "" when it does not run
    base_url: str = ""

    def link(self, path: str) -> str:
        """An absolute link to ``path`` on the web pages, or "" without a base URL."""
        return f"{self.base_url.rstrip('/')}{path}" if self.base_url else ""


@dataclass(frozen=True)
class DigestConfig:
    weekday: str = "monday"

    @property
    def weekday_index(self) -> int:
        """Monday 0 .. Sunday 6, as ``date.weekday()`` counts."""
        return WEEKDAYS.index(self.weekday)


@dataclass(frozen=True)
class Config:
    database: DatabaseConfig
    bot: BotConfig
    imap: ImapConfig
    smtp: SmtpConfig
    source: str = field(default="defaults")
    mail: MailConfig = field(default_factory=MailConfig)
    log: LogConfig = field(default_factory=LogConfig)
    web: WebConfig = field(default_factory=WebConfig)
    digest: DigestConfig = field(default_factory=DigestConfig)
