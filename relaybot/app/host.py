"""Several clubs on one host (issue 31): one ``relaybot run`` per club, supervised.

A host file names the clubs, each by its own ``relaybot.toml`` (its mailbox, bot
address, TD, language, time zone, club name, secret and database)::

    [[club]]
    name = "chess"                      # for the logs
    config = "/etc/relaybot/chess.toml"
    instances = 1                       # more than 1 only on PostgreSQL (G9)

    [[club]]
    name = "shogi"
    config = "/etc/relaybot/shogi.toml"

Clubs are kept apart by construction: each runs in its own process on its own database
(or its own PostgreSQL schema), so a club never sees another's members or games.
``check_host`` refuses a host file where two clubs share a database, a mailbox, a bot
address or a secret. ``Host.run`` starts every club's services, starts again one that
dies (after a pause that grows to a minute), and passes SIGTERM on to all.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from relaybot.config import Config, ConfigError, load_config

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ClubEntry:
    """One club of a host file, with its configuration loaded."""

    name: str
    config_path: Path
    cfg: Config
    instances: int = 1


def _club_environ() -> dict[str, str]:
    """The host's environment without RELAYBOT_* overrides: they would apply to every
    club alike, and each club's settings are its own file's."""
    return {k: v for k, v in os.environ.items() if not k.startswith("RELAYBOT_")}


def load_host(path: Path) -> list[ClubEntry]:
    """Read a host file and each club's configuration; raise ConfigError if unsound."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    clubs = data.get("club")
    if not isinstance(clubs, list) or not clubs:
        raise ConfigError(f"{path}: no [[club]] entries")
    entries: list[ClubEntry] = []
    for i, item in enumerate(clubs, 1):
        if not isinstance(item, dict) or not isinstance(item.get("config"), str):
            raise ConfigError(f"{path}: club {i} needs config = \"<path to relaybot.toml>\"")
        config = (path.parent / item["config"]).resolve()
        if not config.exists():
            raise ConfigError(f"{path}: club {i}: {config} does not exist")
        instances = item.get("instances", 1)
        if not isinstance(instances, int) or not 1 <= instances <= 16:
            raise ConfigError(f"{path}: club {i}: instances must be 1 to 16")
        cfg = load_config(config, _club_environ())
        name = str(item.get("name") or cfg.bot.name or config.stem)
        entries.append(ClubEntry(name, config, cfg, instances))
    check_host(entries)
    return entries


def check_host(entries: list[ClubEntry]) -> None:
    """Clubs kept apart: no two share a database, a mailbox, a bot address, a secret or a
    wake listener address; several instances of a club only on PostgreSQL (G9) and
    without a wake listener (one address takes one listener)."""
    seen: dict[tuple[str, str], str] = {}
    for e in entries:
        keys = {
            "database": e.cfg.database.url,
            "mailbox": f"{e.cfg.imap.user}@{e.cfg.imap.host}:{e.cfg.imap.port}",
            "bot address": e.cfg.bot.address.lower(),
            "secret": e.cfg.bot.secret,
            "wake listener address ([imap] wake_listen)": e.cfg.imap.wake_listen,
        }
        for what, value in keys.items():
            if what == "secret" and not value:
                raise ConfigError(f"club {e.name}: [bot] secret is empty (relaybot init)")
            if not value:
                continue  # no wake listener: nothing to share
            other = seen.setdefault((what, value), e.name)
            if other != e.name:
                raise ConfigError(f"clubs {other} and {e.name} share a {what}: each club "
                                  f"needs its own")
        if e.instances > 1 and not e.cfg.database.url.startswith("postgresql"):
            raise ConfigError(f"club {e.name}: {e.instances} instances need PostgreSQL "
                              f"(SQLite serves one instance at a time)")
        if e.instances > 1 and e.cfg.imap.wake_listen:
            raise ConfigError(f"club {e.name}: {e.instances} instances cannot all listen on "
                              f"imap.wake_listen = {e.cfg.imap.wake_listen}: run one, or "
                              "leave wake_listen empty (IDLE finds the mail)")


@dataclass
class _Child:
    entry: ClubEntry
    index: int
    proc: subprocess.Popen[bytes] | None = None
    pause: float = 1.0
    due: float = 0.0  # when to start it again (time.monotonic)
    starts: int = 0


@dataclass
class Host:
    """Supervises one ``relaybot run`` per club instance until stopped."""

    entries: list[ClubEntry]
    alive_dir: Path | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    children: list[_Child] = field(default_factory=list)

    def _start(self, child: _Child) -> None:
        env = {**_club_environ(), "RELAYBOT_CONFIG": str(child.entry.config_path)}
        cmd = [sys.executable, "-m", "relaybot.cli", "run"]
        if self.alive_dir is not None:
            cmd += ["--alive-file", str(self.alive_dir / f"{child.entry.name}-{child.index}")]
        child.proc = subprocess.Popen(cmd, cwd=child.entry.config_path.parent, env=env)
        child.starts += 1
        log.info("club %s: relaybot run started (pid %s)", child.entry.name, child.proc.pid)

    def _signal(self, signum: int, _frame: FrameType | None) -> None:
        log.info("signal %s: stopping every club", signum)
        self.stop.set()

    def run(self, poll: float = 0.5) -> int:
        """Serve until SIGTERM/SIGINT; returns 0 when every club stopped cleanly."""
        signal.signal(signal.SIGTERM, self._signal)
        signal.signal(signal.SIGINT, self._signal)
        self.children = [_Child(e, i) for e in self.entries for i in range(e.instances)]
        for child in self.children:
            self._start(child)
        while not self.stop.wait(poll):
            for child in self.children:
                self._watch(child)
        return self._stop_all()

    def _watch(self, child: _Child) -> None:
        now = time.monotonic()
        if child.proc is not None:
            code = child.proc.poll()
            if code is None:
                if child.starts and now > child.due + 60:
                    child.pause = 1.0  # ran a minute since its last start: healthy again
                return
            log.warning("club %s: relaybot run ended (exit %s); starting it again in "
                        "%.0f s", child.entry.name, code, child.pause)
            child.proc = None
            child.due = now + child.pause
            child.pause = min(child.pause * 2, 60.0)
            return
        if now >= child.due:
            self._start(child)
            child.due = now

    def _stop_all(self) -> int:
        status = 0
        for child in self.children:
            if child.proc is not None and child.proc.poll() is None:
                child.proc.send_signal(signal.SIGTERM)
        for child in self.children:
            if child.proc is None:
                continue
            try:
                code = child.proc.wait(120)
            except subprocess.TimeoutExpired:
                child.proc.kill()
                code = child.proc.wait()
            status = status or (0 if code == 0 else 1)
        return status
