"""Configuration: a TOML file plus ``RELAYBOT_<SECTION>_<KEY>`` environment overrides.

Every problem is reported as one ``ConfigError`` line naming the key and where
the bad value came from, so an operator can fix it without reading code.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

ADDRESS_RE = re.compile(
    r"^[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z0-9\-]+$|^[A-Za-z0-9._%+\-]+@localhost$"
)


class ConfigError(ValueError):
    """A bad or missing setting; the message is one line for the operator."""


# section -> key -> (default, kind); kind drives validation
SCHEMA: dict[str, dict[str, tuple[Any, str]]] = {
    "database": {"url": ("sqlite:///relaybot.db", "str")},
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
        "poll_seconds": (60, "int"),
        "max_size": (10 * 1024 * 1024, "int"),
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
        "timeout": (60, "int"),
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

LOG_LEVELS = ("debug", "info", "warning", "error")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


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


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    import ipaddress  # here: only SMTP's checks ask, not every command's start

    name = host.strip().strip("[]").lower()
    if name in ("localhost", "localhost.localdomain") or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


_LISTEN_RE = re.compile(
    r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[A-Za-z0-9.\-]+)):(?P<port>\d{1,5})$")


def split_listen(value: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as (host, port); None for "".

    Raises ValueError for anything else, a port outside 1-65535 included.
    """
    if not value:
        return None
    match = _LISTEN_RE.match(value.strip())
    if match is None:
        raise ValueError(value)
    port = int(match["port"])
    if not 1 <= port <= 65535:
        raise ValueError(value)
    return match["v6"] or match["host"], port


# where a URL's userinfo starts: ``scheme://user:``; what follows is its password
_URL_USERINFO_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^:/?#@\s]*:")


def _password_spans(text: str) -> list[tuple[int, int]]:
    """Where the passwords of the URLs in ``text`` are: (start, end) of each.

    A password may hold ``/``, ``?``, ``#``, ``:`` and even ``@`` unencoded (SQLAlchemy
    accepts the first four; urlparse would cut the userinfo short at them), so it runs
    from the ``:`` after the user name to the *last* ``@`` of the URL: of the run of text
    without white space, else of the line. A ``:`` that is a port (``host:5432/db``, no
    ``@`` after it) starts no password. Where a URL holds an ``@`` after its host, the
    span is longer than the password, never shorter.
    """
    spans: list[tuple[int, int]] = []
    for match in _URL_USERINFO_RE.finditer(text):
        start = match.end()
        if spans and start <= spans[-1][1]:
            continue  # inside a password already found
        line_end = min([len(text)] + [i for i in (text.find("\r", start),
                                                   text.find("\n", start)) if i != -1])
        word_end = start
        while word_end < line_end and not text[word_end].isspace():
            word_end += 1
        at = text.rfind("@", start, word_end)
        if at == -1:
            at = text.rfind("@", start, line_end)
        if at != -1:
            spans.append((start, at))
    return spans


def url_password(url: str) -> str | None:
    """The password of a database URL as written (still %-encoded), None without one."""
    spans = _password_spans(url)
    return url[spans[0][0]:spans[0][1]] if spans else None


def redact_url(text: str) -> str:
    """A database URL (or a line of text naming one) fit to print: every password as
    ``***``, whatever characters it holds (see :func:`_password_spans`)."""
    out: list[str] = []
    pos = 0
    for start, end in _password_spans(text):
        out.append(text[pos:start] + "***")
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _check(section: str, key: str, value: Any, kind: str, origin: str) -> Any:
    where = f"{section}.{key} (from {origin})"
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return value.strip().lower() in _TRUE
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    if kind in ("int", "port", "count"):
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: expected a whole number, got {value!r}") from None
        if kind == "port" and not 1 <= number <= 65535:
            raise ConfigError(f"{where}: expected a port number 1-65535, got {number}")
        if number < 0:
            raise ConfigError(f"{where}: must not be negative, got {number}")
        if kind == "count" and not 1 <= number <= 64:
            raise ConfigError(f"{where}: expected a number 1-64, got {number}")
        return number
    if not isinstance(value, str):
        raise ConfigError(f"{where}: expected a string, got {value!r}")
    if kind == "address" and not ADDRESS_RE.match(value):
        raise ConfigError(f"{where}: not a mail address: {value!r}")
    if kind == "address" and "+" in value.split("@", 1)[0] and key == "address":
        raise ConfigError(f"{where}: the bot address must not contain '+': {value!r}")
    if kind == "tz":
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(f"{where}: unknown time zone {value!r}") from None
    if kind == "lang" and value not in ("ja", "en"):
        raise ConfigError(f"{where}: expected ja or en, got {value!r}")
    if kind == "url" and value and not re.match(r"^https?://[^\s/]+(/\S*)?$", value):
        raise ConfigError(f"{where}: expected an http(s) URL or \"\", got {value!r}")
    if kind == "listen":
        try:
            split_listen(value)
        except ValueError:
            raise ConfigError(f"{where}: expected HOST:PORT such as 127.0.0.1:8025 (or \"\" "
                              f"for none), got {value!r}") from None
        return value.strip()
    if kind == "weekday" and value.lower() not in WEEKDAYS:
        raise ConfigError(f"{where}: expected a weekday ({', '.join(WEEKDAYS)}), got {value!r}")
    if kind == "weekday":
        return value.lower()
    if kind == "tls" and value not in ("none", "starttls", "ssl"):
        raise ConfigError(f"{where}: expected none, starttls or ssl, got {value!r}")
    if kind == "level":
        if value.lower() not in LOG_LEVELS:
            raise ConfigError(f"{where}: expected {', '.join(LOG_LEVELS)}, got {value!r}")
        return value.lower()
    if kind == "logformat" and value not in ("text", "json"):
        raise ConfigError(f"{where}: expected text or json, got {value!r}")
    return value


def config_path(environ: dict[str, str] | None = None) -> Path:
    """Where the configuration file is looked for."""
    env = os.environ if environ is None else environ
    return Path(env.get("RELAYBOT_CONFIG", "relaybot.toml"))


def load_config(path: Path | None = None, environ: dict[str, str] | None = None) -> Config:
    """Read the TOML file (if any) and apply environment overrides; validate all keys."""
    env = dict(os.environ if environ is None else environ)
    path = path or config_path(env)
    data: dict[str, Any] = {}
    source = "defaults"
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
        source = str(path)
    elif "RELAYBOT_CONFIG" in env:
        raise ConfigError(f"RELAYBOT_CONFIG points to {path}, which does not exist")
    for section in data:
        if section not in SCHEMA:
            raise ConfigError(f"{path}: unknown section [{section}]")
        if not isinstance(data[section], dict):
            raise ConfigError(f"{path}: [{section}] must be a table")
        for key in data[section]:
            if key not in SCHEMA[section]:
                raise ConfigError(f"{path}: unknown key {section}.{key}")
    values: dict[str, dict[str, Any]] = {}
    for section, keys in SCHEMA.items():
        values[section] = {}
        for key, (default, kind) in keys.items():
            env_name = f"RELAYBOT_{section.upper()}_{key.upper()}"
            if env_name in env:
                raw, origin = env[env_name], env_name
            elif key in data.get(section, {}):
                raw, origin = data[section][key], str(path)
            else:
                raw, origin = default, "default"
            values[section][key] = _check(section, key, raw, kind, origin)
    smtp = SmtpConfig(**values["smtp"])
    problem = smtp.plaintext_auth_problem()
    if problem is not None:
        raise ConfigError(problem)
    return Config(
        database=DatabaseConfig(**values["database"]),
        bot=BotConfig(**values["bot"]),
        imap=ImapConfig(**values["imap"]),
        smtp=smtp,
        source=source,
        log=LogConfig(**values["log"]),
        mail=MailConfig(**values["mail"]),
        web=WebConfig(**values["web"]),
        digest=DigestConfig(**values["digest"]),
    )


TEMPLATE = """\
# relaybot configuration. Every key can be overridden by an environment variable
# RELAYBOT_<SECTION>_<KEY>, e.g. RELAYBOT_IMAP_PASSWORD.
# relaybot の設定ファイルです。環境変数 RELAYBOT_<SECTION>_<KEY> で上書きできます。

[database]
# SQLite by default; postgresql+psycopg://user@host/db for more than one machine.
url = "sqlite:///relaybot.db"

[bot]
# Games get plus addresses: relay+<game-id>@club.example
address = "relay@club.example"
# Default time zone and language (ja | en) for members who have none.
timezone = "Asia/Tokyo"
language = "ja"
# The tournament director: escalations, reports and TD commands by mail.
td = "td@club.example"
# The club's name: the sender's name on every mail and the title of the web pages.
# クラブの名前（メールの差出人名、ウェブページの表題）。
name = "relaybot"
# Where the games are played, as records write it (PGN Site, SGF PC, KIF 場所), e.g.
# "Kanto Correspondence Chess Club"; "" writes the club's name.
# 棋譜に書く対局場所。空ならクラブの名前を書きます。
site = ""
# Key for reply tokens: every mail carries a Reply-To only its recipient was given, and a
# reply to it counts as that member's own. Keep it secret. To rotate, move it to
# secret_previous and write a new one; clear secret_previous after 30 days.
# 返信トークンの鍵（秘密にしてください）。更新時は旧鍵を secret_previous に移し、
# 30 日後に secret_previous を空にします。
secret = ""
secret_previous = ""
# The authserv-id of your own MTA's Authentication-Results headers, e.g.
# "mx.club.example"; "" trusts none. The MTA must strip incoming headers with this id.
# 自分の MTA の authserv-id。空なら Authentication-Results は一切信用しません。
authserv_id = ""

[imap]
host = "127.0.0.1"
port = 143
user = "relay"
password = ""
tls = "none"          # none | starttls | ssl
folder = "INBOX"
# OAuth 2.0 (Gmail, Microsoft 365): a command printing an access token, run before each
# login instead of the password, e.g. "/usr/local/bin/mail-token imap" (see the docs).
# OAuth 2.0 のメールボックスでは、アクセストークンを出力するコマンドを指定します。
oauth2_command = ""
# wake_listen = "127.0.0.1:8025"   # where Dovecot's push (deploy/dovecot/relaybot-wake.lua)
                                   # wakes relaybot at once; without it IDLE tells it ~0.5 s
                                   # later. Dovecot の push 通知を受ける場所（任意）。

[smtp]
host = "127.0.0.1"
port = 25
user = ""             # empty: no AUTH
password = ""
tls = "none"          # none | starttls | ssl
# connections = 2     # mails sent at once; after a crash up to this many may be
                      # resent, with the same Message-IDs (1: one at a time)
# AUTH (user set) without TLS sends the password in the clear: refused unless the host is
# loopback or this is true. 暗号化なしの AUTH はループバック以外では拒否します。
allow_plaintext_auth = false
# OAuth 2.0 for sending (needs user): a command printing an access token; "" = password.
# 送信に OAuth 2.0 を使うときのトークン取得コマンド（user が必要）。
oauth2_command = ""

[log]
# debug | info | warning | error. One line per mail in and per mail out at info.
# ログの詳しさ。info では受信メール 1 通ごと・送信メール 1 通ごとに 1 行を出します。
level = "info"
# text (key=value) | json (one JSON object a line, for a log collector)
format = "text"

[mail]
# Replies a day to one address caused by its own mail (acks, status, help, errors,
# confirmation requests); more mail from it that day is handled but not answered.
# 1 つのアドレスへの 1 日の返信の上限（それを超えたメールは処理しますが返信しません）。
reply_cap = 20
# Alerts a day to the TD; the rest of the day's come the next day in one summary mail.
# TD への 1 日の通知の上限。超えた分は翌日 1 通にまとめて送ります。
td_alert_cap = 30
# Mail from strangers and automated mail (bounces, auto-replies) is kept raw this many
# days, then only its ledger line (sender, subject, date) stays.
# 会員以外からのメールと自動送信メールの原文を保存する日数。
retention_days = 30
# Mail caused by a mail that did not prove its sender (confirmation requests, forgery
# notices, status answers): at most this many a day to one address, and in all; the
# rest is listed in the TD's next daily summary.
# 本人確認のないメールが引き起こすメール（確認のお願いなど）の 1 日の上限
# （1 アドレスあたりと全体）。
unproven_address_cap = 3
unproven_cap = 100

[web]
# Public URL of `relaybot web` (e.g. "https://chess.club.example"): mails then link to
# each game's page and digests offer one-click unsubscribe. "" = no links.
# `relaybot web` の公開 URL。設定するとメールに対局ページへのリンクが付きます。
base_url = ""

[digest]
# The weekday the weekly digest goes out, in each member's own time zone.
# 週刊ダイジェストを送る曜日（各会員のタイムゾーン）。
weekday = "monday"
"""


def new_secret() -> str:
    """A random key for ``[bot] secret`` (256 bits, URL-safe text)."""
    import secrets  # here: only ``relaybot init`` and the tests make one

    return secrets.token_urlsafe(32)


def new_config_text() -> str:
    """What ``relaybot init`` writes into a new config: :data:`TEMPLATE` with a random
    ``secret``."""
    return TEMPLATE.replace('secret = ""', f'secret = "{new_secret()}"', 1)


_TABLE_RE = re.compile(r"^\s*\[([^\[\]]+)\]\s*(?:#.*)?$")


def add_missing_keys(text: str, origin: str = "relaybot.toml") -> tuple[str, list[str]]:
    """An existing config with the keys a new one would have and it lacks, added at the
    top of their table; every other line is kept as it was (``relaybot init`` on an
    upgrade, issue 12: an upgraded club gets its ``secret`` and keeps running).

    Returns the new text and the ``section.key`` names added. A ``secret`` added here is
    a new random one. Raises :class:`ConfigError` when the text is not valid TOML, or
    when the keys cannot be placed safely (say, a ``[bot]`` written as an inline table):
    the operator then adds them by hand.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{origin}: not valid TOML: {exc}") from None
    wanted = tomllib.loads(new_config_text())
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    added: list[str] = []
    for section, keys in wanted.items():
        have = data.get(section, {})
        missing = [k for k in keys if not isinstance(have, dict) or k not in have]
        if not missing:
            continue
        new_lines = [f"{key} = {_toml_value(keys[key])}\n" for key in missing]
        header = next((i for i, line in enumerate(lines)
                       if (m := _TABLE_RE.match(line)) and m.group(1).strip() == section),
                      None)
        if header is None and section in data:
            raise ConfigError(f"{origin}: [{section}] is not a plain table; add "
                              f"{', '.join(section + '.' + k for k in missing)} by hand")
        if header is None:
            lines += ["\n", f"[{section}]\n", *new_lines]
        else:
            lines[header + 1 : header + 1] = new_lines
        added += [f"{section}.{key}" for key in missing]
    result = "".join(lines)
    try:
        check = tomllib.loads(result)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{origin}: could not add {', '.join(added)}: {exc}") from None
    if any(key.split(".")[1] not in check.get(key.split(".")[0], {}) for key in added):
        raise ConfigError(f"{origin}: could not add {', '.join(added)}; add them by hand")
    return result, added


def _toml_value(value: Any) -> str:
    """A TOML literal for the strings, whole numbers and booleans of :data:`TEMPLATE`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, (str, int)):
        raise TypeError(f"no TOML literal for {value!r}")
    if isinstance(value, int):
        return str(value)
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
