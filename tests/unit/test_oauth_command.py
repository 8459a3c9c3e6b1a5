"""The OAuth 2.0 token command (issue 28): run without a shell, its output the token,
every failure one line naming the setting."""

from __future__ import annotations

import pytest

from relaybot.mail.oauth import TokenCommandError, access_token, oauthbearer, xoauth2


def test_the_token_is_the_output_stripped() -> None:
    assert access_token("printf '  ya29.abc\\n\\n'", "imap.oauth2_command") == "ya29.abc"


def test_no_shell_runs_the_command() -> None:
    # a shell would expand $HOME and run the second command; shlex hands both over as words
    assert access_token("echo $HOME", "imap.oauth2_command") == "$HOME"
    with pytest.raises(TokenCommandError, match="more than one word"):
        access_token("echo token; echo more", "smtp.oauth2_command")


def test_a_slow_command_is_stopped() -> None:
    with pytest.raises(TokenCommandError) as info:
        access_token("sleep 5", "smtp.oauth2_command", timeout=0.5)
    assert str(info.value) == "smtp.oauth2_command: sleep printed no token within 0.5 s"


def test_stderr_is_quoted_by_its_last_line_only() -> None:
    with pytest.raises(TokenCommandError) as info:
        access_token("sh -c 'echo a >&2; echo b >&2; exit 3'", "imap.oauth2_command")
    assert str(info.value) == "imap.oauth2_command: sh failed (exit 3): b"


def test_sasl_messages() -> None:
    assert xoauth2("relay@club.example", "T") == \
        b"user=relay@club.example\x01auth=Bearer T\x01\x01"
    # RFC 7628 3.1: "," and "=" in the authzid are escaped as =2C and =3D
    assert oauthbearer("a,b=c@club.example", "T", "imap.example", 993) == \
        b"n,a=a=2Cb=3Dc@club.example,\x01host=imap.example\x01port=993\x01auth=Bearer T\x01\x01"
