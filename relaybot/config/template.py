"""The sample configuration file (``TEMPLATE``) that ``relaybot init`` writes with a new
random ``secret``, and the keys of a new file added to an older one on an upgrade.
"""

from __future__ import annotations

import re
from typing import Any

from relaybot.config.checks import ConfigError

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
# secret_previous and write a new one: the old key's tokens count for 30 more days.
# 返信トークンの鍵（秘密にしてください）。更新時は旧鍵を secret_previous に移します
# （旧鍵のトークンはその後 30 日間有効）。
secret = ""
secret_previous = ""
# The authserv-id of your own MTA's Authentication-Results headers, e.g.
# "mx.club.example"; "" trusts none. The MTA must strip incoming headers with this id.
# 自分の MTA の authserv-id。空なら Authentication-Results は一切信用しません。
authserv_id = ""
# error_reply_cap = 10   # error replies a day to one address (wrong moves and the like)
                         # 1 つのアドレスへの 1 日のエラー返信の上限

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
# poll_seconds = 60     # how often the mailbox is looked at besides IDLE (at least 1)
                       # IDLE とは別にメールボックスを見る間隔（秒）
# max_size = 10485760   # mail larger than this many bytes is never downloaded
                       # これより大きいメール（バイト）はダウンロードしません
# wake_listen = "127.0.0.1:8025"   # where Dovecot's push (deploy/dovecot/relaybot-wake.lua)
                                   # wakes relaybot at once; without it IDLE tells it ~0.5 s
                                   # later. Dovecot の push 通知を受ける場所（任意）。

[smtp]
host = "127.0.0.1"
port = 25
user = ""             # empty: no AUTH
password = ""
tls = "none"          # none | starttls | ssl
# timeout = 60        # seconds to wait for the SMTP server / SMTP サーバーを待つ秒数
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
    import tomllib  # here: only `relaybot init` on an existing file asks

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
