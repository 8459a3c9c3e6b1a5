"""OAuth 2.0 for IMAP and SMTP (issue 28): the access token from the operator's command,
and the SASL messages that carry it (XOAUTH2, and OAUTHBEARER, RFC 7628).

Gmail and Microsoft 365 mailboxes take no password; they take a short-lived access
token (an hour, typically). relaybot does not speak to the provider itself: the operator
names a command (``[imap] oauth2_command``, ``[smtp] oauth2_command``) that prints a
valid access token, say a small script that trades a refresh token for one. It is run
before every login, so a token never outlives its hour inside relaybot.

The command is split like a shell would (``shlex``) but no shell runs it: no globbing,
no pipes, nothing from the environment expanded. Its standard output, stripped, is the
token.
"""

from __future__ import annotations

import base64
import shlex
import subprocess
from typing import Final

__all__ = ["TOKEN_TIMEOUT", "TokenCommandError", "access_token", "b64", "oauthbearer", "xoauth2"]

TOKEN_TIMEOUT: Final = 60.0
"""Seconds a token command may take (it may ask the provider over the network)."""


class TokenCommandError(OSError):
    """The token command could not run, failed or printed no token. An ``OSError``: like
    a server that cannot be reached, the service tries again later (the provider's token
    endpoint may be down for a moment), and the message is one line for the operator."""


def access_token(command: str, key: str, timeout: float = TOKEN_TIMEOUT) -> str:
    """Run ``command`` (the setting ``key``, e.g. ``imap.oauth2_command``) and return the
    access token it prints.

    Raises :class:`TokenCommandError` with one line naming ``key`` when the command
    cannot be split or started, exits non-zero (its last line on stderr is quoted), runs
    longer than ``timeout`` or prints nothing.
    """
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise TokenCommandError(f"{key}: cannot read the command: {exc}") from None
    if not argv:
        raise TokenCommandError(f"{key} is empty")
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout, check=False,
                              stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise TokenCommandError(f"{key}: command not found: {argv[0]}") from None
    except PermissionError:
        raise TokenCommandError(f"{key}: not allowed to run {argv[0]} (is it executable?)"
                                ) from None
    except subprocess.TimeoutExpired:
        raise TokenCommandError(f"{key}: {argv[0]} printed no token within "
                                f"{timeout:g} s") from None
    except OSError as exc:
        raise TokenCommandError(f"{key}: cannot run {argv[0]}: {exc.strerror or exc}"
                                ) from None
    if done.returncode != 0:
        said = _last_line(done.stderr) or _last_line(done.stdout)
        raise TokenCommandError(f"{key}: {argv[0]} failed (exit {done.returncode})"
                                + (f": {said}" if said else ""))
    token = done.stdout.decode("utf-8", "replace").strip()
    if not token:
        raise TokenCommandError(f"{key}: {argv[0]} printed no token")
    if any(ch.isspace() for ch in token):
        # a token is one word; two lines are most likely a script's chatter on stdout
        raise TokenCommandError(f"{key}: {argv[0]} printed more than one word; it must "
                                "print the access token alone")
    return token


def _last_line(data: bytes) -> str:
    """The last non-blank line of a command's output, shortened for one line of error."""
    lines = [line.strip() for line in data.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return ""
    last = lines[-1]
    return last if len(last) <= 200 else last[:199] + "…"


def xoauth2(user: str, token: str) -> bytes:
    """The XOAUTH2 initial response, before base64: ``user=U^Aauth=Bearer T^A^A``."""
    return f"user={user}\x01auth=Bearer {token}\x01\x01".encode()


def oauthbearer(user: str, token: str, host: str, port: int) -> bytes:
    """The OAUTHBEARER initial response (RFC 7628 section 3.1), before base64."""
    authzid = user.replace("=", "=3D").replace(",", "=2C")
    return (f"n,a={authzid},\x01host={host}\x01port={port}\x01"
            f"auth=Bearer {token}\x01\x01").encode()


def b64(data: bytes) -> str:
    """``data`` in base64, as SMTP's AUTH line carries it."""
    return base64.b64encode(data).decode("ascii")
