"""``relaybot check``: are the settings right? Logs in to IMAP and SMTP, sends nothing,
and reads the last few mails' ``Authentication-Results`` to tell whether
``[bot] authserv_id`` is what the operator's MTA writes (issue 28).

One line per finding, each saying what to do; exit 0 when nothing is wrong, 2 when a
setting is (a refused login, a TLS mode that does not fit the port, an authserv-id no
mail carries), 3 when a server could not be reached and nothing else is wrong.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from relaybot.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_UNREACHABLE,
    Subparsers,
    json_option,
    print_json,
)
from relaybot.config import Config, ConfigError

Level = Literal["ok", "note", "problem", "unreachable"]

CHECK_TIMEOUT = 15.0
"""Seconds any one server may take to answer here (the service itself waits longer)."""

RECENT = 10
"""How many of the latest mails are read for their Authentication-Results."""


@dataclass(frozen=True)
class Finding:
    """One line of the report: which part, how it stands, and what to do."""

    part: str  # bot, imap, smtp, authserv_id
    level: Level
    text: str


def register(sub: Subparsers) -> None:
    check = sub.add_parser(
        "check", help="check the settings: log in to IMAP and SMTP (sending nothing) and "
        "compare [bot] authserv_id with what the last mails carry; exit 2 when a setting "
        "is wrong, 3 when a server cannot be reached",
        description="Reads the settings, logs in to the mailbox and to the SMTP server "
        "without sending anything, and reads the Authentication-Results headers of the "
        f"last {RECENT} mails. Prints one line per finding with what to do.")
    json_option(check)
    check.set_defaults(func=cmd_check)


def cmd_check(cfg: Config, args: argparse.Namespace) -> int:
    """Run every check and print the findings; the exit status says the worst."""
    findings, seen = run_checks(cfg)
    if args.json:
        print_json({"ok": all(f.level in ("ok", "note") for f in findings),
                    "findings": [dataclasses.asdict(f) for f in findings],
                    "authserv_ids": dict(seen)})
    else:
        width = max(len(f.level) for f in findings)
        for f in findings:
            print(f"{f.level:<{width}}  {f.part}: {f.text}")
    return exit_status(findings)


def exit_status(findings: list[Finding]) -> int:
    """2 for a setting to fix, else 3 for a server not reached, else 0."""
    levels = {f.level for f in findings}
    if "problem" in levels:
        return EXIT_ERROR
    if "unreachable" in levels:
        return EXIT_UNREACHABLE
    return EXIT_OK


def run_checks(cfg: Config) -> tuple[list[Finding], Counter[str]]:
    """Every finding about ``cfg``, in the order a reader fixes them, and the
    authserv-ids the last mails' topmost Authentication-Results name (mails per id)."""
    from relaybot.mail.preflight import imap_login_problem, smtp_login_problem

    out: list[Finding] = [Finding("config", "ok", f"read from {cfg.source}")]
    try:
        cfg.bot.token_keys()
    except ConfigError as exc:
        out.append(Finding("bot", "problem", str(exc)))
    seen: Counter[str] = Counter()
    problem = imap_login_problem(cfg.imap)
    if problem is not None:
        out.append(Finding("imap", "problem", problem))
    else:
        found, seen = _check_imap(cfg)
        out += found
    problem = smtp_login_problem(cfg.smtp)
    if problem is not None:
        out.append(Finding("smtp", "problem", problem))
    else:
        out.append(_check_smtp(cfg))
    return out, seen


_AUTHSERV_PART = "authserv_id"


def _check_imap(cfg: Config) -> tuple[list[Finding], Counter[str]]:
    """Log in, look at the folder and the mails' Authentication-Results."""
    from relaybot.app.runner import imap_settings
    from relaybot.mail.imap import ImapAuthError, ImapError
    from relaybot.mail.imap.survey import survey
    from relaybot.mail.inbound.auth_results import authserv_id_of

    i = cfg.imap
    settings = dataclasses.replace(imap_settings(cfg), timeout=CHECK_TIMEOUT)
    oauth = bool(i.oauth2_command.strip())
    how = "an OAuth 2.0 token" if oauth else "the password"
    try:
        seen = survey(settings, RECENT)
    except ImapAuthError as exc:
        text = str(exc)
        if "refused" in text:  # not when the token command itself failed
            text += f" (check imap.user and {'imap.oauth2_command' if oauth else 'imap.password'})"
        return [Finding("imap", "problem", text)], Counter()
    except ImapError as exc:
        text = str(exc)
        level: Level = "problem" if " set imap.tls" in text else "unreachable"
        if level == "unreachable":
            text += " (check imap.host and imap.port, or try again later)"
        return [Finding("imap", level, text)], Counter()
    out = [Finding("imap", "ok", f"logged in to {i.host}:{i.port} as {i.user} with {how}")]
    if not seen.folder_exists:
        out.append(Finding("imap", "problem", f"the folder {i.folder!r} does not exist: "
                           "set imap.folder to the folder the mail arrives in"))
    else:
        out.append(Finding("imap", "ok", f"{i.folder}: {seen.waiting} mail(s) waiting"))
    out.append(_authserv_finding(cfg, seen.results))
    return out, Counter(authserv_id_of(values[0]) for values in seen.results if values)


def _authserv_finding(cfg: Config, results: list[list[str]]) -> Finding:
    """Does ``[bot] authserv_id`` match what the MTA writes into the mails?"""
    from relaybot.mail.inbound.auth_results import authserv_id_of

    want = cfg.bot.authserv_id.strip().lower()
    mails = len(results)
    tops = Counter(authserv_id_of(values[0]) for values in results if values)
    anywhere = {authserv_id_of(v) for values in results for v in values}
    listed = ", ".join(f"{ident or '(none)'} ({n} of {mails})" for ident, n in tops.most_common())
    if mails == 0:
        return Finding(_AUTHSERV_PART, "note",
                       "no mail in the mailbox yet, so bot.authserv_id cannot be compared; "
                       "send the bot a mail and run `relaybot check` again")
    if not tops:
        if want:
            return Finding(_AUTHSERV_PART, "problem",
                           f"bot.authserv_id = \"{cfg.bot.authserv_id}\", but none of the "
                           f"last {mails} mails carries an Authentication-Results header: "
                           "have your MTA add them (OpenDMARC), or set "
                           "bot.authserv_id = \"\"")
        return Finding(_AUTHSERV_PART, "note",
                       f"none of the last {mails} mails carries an Authentication-Results "
                       "header; bot.authserv_id is empty, so DMARC results are not used")
    if not want:
        best = tops.most_common(1)[0][0]
        return Finding(_AUTHSERV_PART, "note",
                       f"bot.authserv_id is empty, so DMARC results are not used; the last "
                       f"mails carry Authentication-Results from: {listed}. If "
                       f"\"{best}\" is your own MTA, set bot.authserv_id = \"{best}\"")
    if want in anywhere:
        return Finding(_AUTHSERV_PART, "ok",
                       f"bot.authserv_id \"{want}\" is what the mails carry: {listed}")
    best = tops.most_common(1)[0][0]
    return Finding(_AUTHSERV_PART, "problem",
                   f"bot.authserv_id = \"{cfg.bot.authserv_id}\", but the last mails carry "
                   f"Authentication-Results from: {listed}; set bot.authserv_id to your own "
                   f"MTA's (the topmost header's, here \"{best}\")")


def _check_smtp(cfg: Config) -> Finding:
    """Connect and log in (when ``smtp.user`` is set); send nothing."""
    import asyncio  # here, as the mail stack: not loaded for every command's start

    import aiosmtplib

    from relaybot.mail.oauth import TokenCommandError
    from relaybot.mail.smtp import SmtpSender

    s = cfg.smtp
    smtp = dataclasses.replace(s, timeout=int(min(s.timeout, CHECK_TIMEOUT)))

    async def attempt() -> None:
        async with SmtpSender(smtp):
            pass

    try:
        asyncio.run(attempt())
    except aiosmtplib.SMTPAuthenticationError as exc:
        key = "smtp.oauth2_command" if s.oauth2_command.strip() else "smtp.password"
        text = _one_line(exc.message)
        if not text.startswith("SMTP login refused"):
            text = f"SMTP login refused for {s.user!r}: {exc.code} {text}"
        return Finding("smtp", "problem", f"{text} (check smtp.user and {key})")
    except TokenCommandError as exc:
        return Finding("smtp", "problem", str(exc))
    except ConfigError as exc:
        return Finding("smtp", "problem", str(exc))
    except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
        text = _one_line(getattr(exc, "message", "") or str(exc) or type(exc).__name__)
        if " set smtp.tls" in text:
            return Finding("smtp", "problem", f"SMTP connect to {s.host}:{s.port} failed: "
                           f"{text}")
        return Finding("smtp", "unreachable", f"SMTP {s.host}:{s.port} cannot be reached: "
                       f"{text} (check smtp.host and smtp.port, or try again later)")
    login = (" and logged in as " + s.user + (" with an OAuth 2.0 token"
             if s.oauth2_command.strip() else "")) if s.user else " (no login: smtp.user is empty)"
    return Finding("smtp", "ok", f"connected to {s.host}:{s.port}{login}; nothing sent")


def _one_line(text: str) -> str:
    return " ".join(text.split())
