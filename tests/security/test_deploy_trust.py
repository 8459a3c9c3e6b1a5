"""The compose stack's own trust (issue 22 item 5): what the bot believes in
``Authentication-Results`` is only as good as the MTA in front of it. Checked with the
Debian packages' own tools on the rendered configs (``postmap -q``, ``postconf``,
``opendmarc -n``), rendered as tests/integration/test_deploy.py renders them (its
fixtures ``compose`` and ``postfix_dir`` come through tests/security/conftest.py).

Each test's docstring starts with "attack -> outcome" (docs/security.md is made from them).
"""

from __future__ import annotations

import email
import ipaddress
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from relaybot.mail.inbound.auth_results import read_dmarc
from relaybot.mail.inbound.headers import Headers
from tests.integration.test_deploy import DEPLOY, SAMPLE, _entrypoint_names, _render, _tool

pytestmark = pytest.mark.integration

OURS = SAMPLE["AUTHSERV_ID"]  # mx.club.example, the bot's [bot] authserv_id

# Our authserv-id in the forms RFC 8601 allows (a version, comments before and after the
# id or the version, any case, any whitespace, folded), and the id OpenDKIM writes for
# OpenDMARC. True: relaybot reads the header as its own MTA's dmarc=pass when no header of
# ours lies above it (so the MTA must never let it through).
FORGED = [
    ("Authentication-Results: mx.club.example; dmarc=pass header.from=example.org", True),
    ("Authentication-Results: mx.club.example 1; dmarc=pass header.from=example.org", True),
    ("Authentication-Results: mx.club.example (our MTA); dmarc=pass header.from=example.org",
     True),
    ("Authentication-Results: (forged) mx.club.example; dmarc=pass header.from=example.org",
     True),
    ("Authentication-Results: ((nested) comment) mx.club.example (c) 1 (v); dmarc=pass "
     "header.from=example.org", True),
    ("AUTHENTICATION-RESULTS: MX.CLUB.EXAMPLE; DMARC=PASS HEADER.FROM=EXAMPLE.ORG", True),
    ("authentication-results: Mx.Club.Example 1; dmarc=pass header.from=example.org", True),
    ("Authentication-Results:\tmx.club.example;\tdmarc=pass header.from=example.org", True),
    ("Authentication-Results:     mx.club.example  ;  dmarc=pass header.from=example.org",
     True),
    ("Authentication-Results:mx.club.example;dmarc=pass header.from=example.org", True),
    # folded: Postfix hands header_checks the whole logical header, line breaks included
    ("Authentication-Results:\n\tmx.club.example\n 1;\n  dmarc=pass header.from=example.org",
     True),
    ("Authentication-Results: mx.club.example\n\t(comment)\n\t1; dmarc=pass "
     "header.from=example.org", True),
    ('Authentication-Results: "mx.club.example"; dmarc=pass header.from=example.org', False),
    ("Authentication-Results : mx.club.example; dmarc=pass header.from=example.org", False),
    ("Authentication-Results: dkim.mx.club.example; dkim=pass header.d=example.org", False),
]


def _header_check(postfix_dir: Path, header: str) -> str:
    """What Postfix's header_checks (the rendered regexp table) do with one header."""
    # -c: our config, not /etc/postfix/main.cf (Debian's package may leave none)
    proc = subprocess.run([_tool("postmap"), "-c", str(postfix_dir), "-q", header,
                           f"regexp:{postfix_dir / 'header_checks'}"], capture_output=True,
                          text=True, timeout=30)
    assert proc.stderr == "", proc.stderr
    return proc.stdout.strip()


def _postconf(postfix_dir: Path, *args: str) -> str:
    """``postconf -c <dir> ...`` on the rendered config; no warnings."""
    proc = subprocess.run([_tool("postconf"), "-c", str(postfix_dir), *args],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    return proc.stdout


def _bot_reads_as_ours(header: str) -> bool:
    """relaybot's own reading: this header alone, From: example.org."""
    raw = header.replace("\n", "\r\n") + "\r\nFrom: <td@example.org>\r\nSubject: x\r\n\r\nx\r\n"
    msg = email.message_from_bytes(raw.encode("ascii"))
    return read_dmarc(Headers(msg), OURS, "example.org").passed


@pytest.mark.parametrize(("header", "bot_trusts_it"), FORGED)
def test_forged_results_with_our_authserv_id_in_any_rfc8601_form_are_dropped(
        postfix_dir: Path, header: str, bot_trusts_it: bool) -> None:
    """a stranger's Authentication-Results naming our authserv-id in any RFC 8601 form
    (a version, comments, any case, tabs, folded) -> dropped by Postfix on arrival
    (header_checks IGNORE), so the bot never reads it as its MTA's dmarc=pass

    The bot itself would trust most of these forms when nothing of ours lies above them
    (OpenDMARC down, or silent), which is why the MTA must drop every one."""
    assert _bot_reads_as_ours(header) is bot_trusts_it
    assert _header_check(postfix_dir, header) == "IGNORE"


@pytest.mark.parametrize("header", [
    "Authentication-Results: mx.google.com; dmarc=pass header.from=gmail.com",
    "Authentication-Results: mx.club.example.evil.test; dmarc=pass header.from=example.org",
    "Authentication-Results: mxxclub.example; dmarc=pass header.from=example.org",
    "Authentication-Results: i=1; spf=pass",
    "Authentication-Results: ;",
])
def test_results_from_any_other_server_are_dropped_too(postfix_dir: Path, header: str) -> None:
    """Authentication-Results from another authserv-id (the sender's provider, a look-alike
    id, nonsense) -> dropped as well: Postfix drops every arriving one, parsing no id (no
    form to miss); the bot reads only its own MTA's, which the milters add afterwards

    Why every one: a pattern for our id must follow RFC 8601's whole grammar (versions,
    nested comments, quoted ids, folding) and one gap is a forged TD command that acts;
    dropping them all costs nothing, since the bot believes no other server's header."""
    assert not _bot_reads_as_ours(header)
    assert _header_check(postfix_dir, header) == "IGNORE"


@pytest.mark.parametrize("header", [
    "Subject: Authentication-Results: mx.club.example; dmarc=pass",
    "X-Authentication-Results: mx.club.example; dmarc=pass",
    "ARC-Authentication-Results: i=1; mx.club.example; dmarc=pass",
    "From: Authentication-Results <a@example.org>",
])
def test_other_headers_mentioning_the_results_are_kept(postfix_dir: Path, header: str) -> None:
    """genuine: a header that only mentions Authentication-Results (a Subject, an X- or
    ARC- header) -> kept: the drop is anchored to the header's name"""
    assert _header_check(postfix_dir, header) == ""


def test_our_milters_results_are_not_subject_to_the_drop(postfix_dir: Path) -> None:
    """genuine: the Authentication-Results our OpenDKIM and OpenDMARC add -> kept:
    header_checks apply to arriving headers only, and milter_header_checks (which would see
    the milters' headers) stays empty"""
    # the milters' headers would be dropped if a check saw them: none may
    ours = f"Authentication-Results: {OURS}; dmarc=pass header.from=example.org"
    assert _header_check(postfix_dir, ours) == "IGNORE"
    assert _postconf(postfix_dir, "-hx", "milter_header_checks").strip() == ""
    assert _postconf(postfix_dir, "-hx", "header_checks").strip() == \
        f"regexp:{postfix_dir / 'header_checks'}"
    # port 25 runs both milters: OpenDKIM's results first, OpenDMARC's header on top
    assert _postconf(postfix_dir, "-hx", "smtpd_milters").strip() == \
        "inet:opendkim:8891, inet:opendmarc:8893"
    assert "milter_header_checks" not in _postconf(postfix_dir, "-P")


def test_a_milter_that_is_down_defers_the_mail(postfix_dir: Path) -> None:
    """OpenDMARC or OpenDKIM down or failing, so no header of ours would be added -> the
    mail is deferred (milter_default_action = tempfail; the sender retries), never
    delivered unchecked"""
    assert _postconf(postfix_dir, "-hx", "milter_default_action").strip() == "tempfail"
    # no service of master.cf (port 25 or the bot's 587) sets it otherwise
    assert "milter_default_action" not in _postconf(postfix_dir, "-P")


def _opendmarc_conf(tmp_path: Path) -> Path:
    (tmp_path / "ignore_hosts").write_text("127.0.0.1\n::1\n")
    return _render(DEPLOY / "opendmarc" / "opendmarc.conf.in",
                   _entrypoint_names("opendmarc", "relaybot.conf.in"),
                   tmp_path / "opendmarc.conf",
                   {"/etc/opendmarc/ignore_hosts": str(tmp_path / "ignore_hosts"),
                    "/run/opendmarc/": f"{tmp_path}/"})


def test_a_from_opendmarc_cannot_read_is_rejected(tmp_path: Path) -> None:
    """a From: OpenDMARC cannot read (a 6 kB display name, no domain, two From: fields),
    on which it would add no header -> rejected by OpenDMARC (RequiredHeaders true), never
    delivered without our Authentication-Results"""
    conf = _opendmarc_conf(tmp_path)
    text = conf.read_text(encoding="utf-8")
    assert re.findall(r"^RequiredHeaders\s+(\S+)$", text, re.MULTILINE) == ["true"]
    # it still rejects nothing for a DMARC failure: the bot tells the member (issue 12)
    assert re.findall(r"^RejectFailures\s+(\S+)$", text, re.MULTILINE) == ["false"]
    proc = subprocess.run([_tool("opendmarc"), "-n", "-c", str(conf)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def _networks(value: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """mynetworks as Postfix lists it: every entry must be an address block (no file, no
    table, no host name: those could hide the compose network)."""
    entries = value.replace(",", " ").split()
    assert entries
    return [ipaddress.ip_network(re.sub(r"^\[(.*)\](/\d+)?$", r"\1\2", e), strict=False)
            for e in entries]


def test_a_connection_through_the_published_port_is_not_trusted(
        compose: dict[str, Any], postfix_dir: Path) -> None:
    """a stranger reaching the published port 25 from inside the compose network's range
    (Docker's proxy makes a connection look as if it came from the network's gateway) ->
    not in mynetworks (loopback only, postconf): may not relay, and OpenDMARC checks its
    mail like any other (it skips loopback alone)"""
    [block] = compose["networks"]["mail"]["ipam"]["config"]
    subnet = ipaddress.ip_network(block["subnet"])
    gateway = ipaddress.ip_address(block.get("gateway") or next(subnet.hosts()))
    postfix = compose["services"]["postfix"]
    assert postfix["environment"]["MAIL_NETWORK"] == str(subnet) == SAMPLE["MAIL_NETWORK"]
    # port 25 (the published one): loopback alone, whatever the compose network is
    trusted = _networks(_postconf(postfix_dir, "-hx", "mynetworks"))
    assert all(net.is_loopback for net in trusted), trusted
    assert not any(net.version == subnet.version and net.overlaps(subnet)
                   for net in trusted)
    assert not any(gateway in net for net in trusted)
    # the bot's port 587 is the one that trusts the network, and it is not published
    [port] = postfix["ports"]
    assert str(port["target"] if isinstance(port, dict) else port.rsplit(":", 1)[1]) == "25"
    submission = re.search(r"^587/inet/mynetworks = (.+)$", _postconf(postfix_dir, "-Px"),
                           re.MULTILINE)
    assert submission is not None
    assert subnet in _networks(submission.group(1))
    # OpenDMARC's IgnoreHosts: the entrypoint writes loopback only
    script = (DEPLOY / "opendmarc" / "entrypoint.sh").read_text(encoding="utf-8")
    line = re.search(r"^(printf .*?)\s*>\s*/etc/opendmarc/ignore_hosts$", script, re.MULTILINE)
    assert line is not None
    ignored = subprocess.run(["sh", "-c", line.group(1)], capture_output=True, text=True,
                             check=True).stdout.split()
    assert ignored and all(ipaddress.ip_address(a).is_loopback for a in ignored), ignored
