"""Configuration: a TOML file plus ``RELAYBOT_<SECTION>_<KEY>`` environment overrides.

Every problem is reported as one ``ConfigError`` line naming the key and where
the bad value came from, so an operator can fix it without reading code.

The settings and the dataclasses they load into are :mod:`.settings`; what a value of
each kind may be, :mod:`.checks`; reading the file and the environment,
:mod:`.loading`; the sample file ``relaybot init`` writes, :mod:`.template`; database
URLs fit to print, :mod:`.urls`. Light on purpose: the command line imports this package
before it knows the command (``relaybot --help``), so nothing here imports the store,
the web or a game.
"""

from relaybot.config.checks import (
    ADDRESS_RE,
    LOG_LEVELS,
    WEEKDAYS,
    ConfigError,
    is_bot_mailbox,
    is_loopback,
    split_listen,
)
from relaybot.config.loading import config_path, load_config
from relaybot.config.settings import (
    SCHEMA,
    BotConfig,
    Config,
    DatabaseConfig,
    DigestConfig,
    ImapConfig,
    LogConfig,
    MailConfig,
    SmtpConfig,
    WebConfig,
)
from relaybot.config.template import TEMPLATE, add_missing_keys, new_config_text, new_secret
from relaybot.config.urls import redact_url, url_password

__all__ = [
    "ADDRESS_RE",
    "LOG_LEVELS",
    "SCHEMA",
    "TEMPLATE",
    "WEEKDAYS",
    "BotConfig",
    "Config",
    "ConfigError",
    "DatabaseConfig",
    "DigestConfig",
    "ImapConfig",
    "LogConfig",
    "MailConfig",
    "SmtpConfig",
    "WebConfig",
    "add_missing_keys",
    "config_path",
    "is_bot_mailbox",
    "is_loopback",
    "load_config",
    "new_config_text",
    "new_secret",
    "redact_url",
    "split_listen",
    "url_password",
]
