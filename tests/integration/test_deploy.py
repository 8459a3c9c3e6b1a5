"""The compose stack a club starts (issue 14 item 2): docker-compose.yml validated by
Debian's docker-compose, every relaybot service's command, volumes and settings checked
against the CLI and the config schema, and the Postfix, OpenDKIM, OpenDMARC and Dovecot
configs checked by the Debian packages themselves on this machine."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from relaybot.cli import build_parser
from relaybot.config import SCHEMA, load_config

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
ENV_EXAMPLE = DEPLOY / "env.example"
RELAYBOT_SERVICES = ("relaybot-init", "relaybot-run", "relaybot-web")
INSTALL = ("apt-get install docker-compose postfix opendkim opendkim-tools opendmarc "
           "dovecot-lmtpd gettext-base")


def _tool(name: str) -> str:
    path = shutil.which(name) or next(
        (str(p) for p in (Path("/usr/sbin") / name, Path("/usr/bin") / name) if p.exists()),
        None)
    if path is None:  # a missing tool is a failure, never a skip: scripts/test.sh installs it
        pytest.fail(f"{name} is not installed ({INSTALL}; scripts/test.sh does it)",
                    pytrace=False)
    return path


def _env_example() -> dict[str, str]:
    values = {}
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    """``docker-compose config``: the file as Docker reads it, with .env values filled in."""
    env = {k: v for k, v in os.environ.items() if k not in _env_example()}
    proc = subprocess.run([_tool("docker-compose"), "--env-file", str(ENV_EXAMPLE), "-f",
                           str(ROOT / "docker-compose.yml"), "config"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "WARNING" not in proc.stderr, proc.stderr  # no unset variable, no odd key
    data = yaml.safe_load(proc.stdout)
    assert isinstance(data, dict)
    return data


def test_compose_has_the_stack_a_club_needs(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"postgres", "dovecot", "postfix", "opendkim", "opendmarc",
                             *RELAYBOT_SERVICES}
    for name, service in services.items():
        # every image is built by the project, from deploy/<name>/Dockerfile
        build = service["build"]
        dockerfile = Path(build["context"]) / build.get("dockerfile", "Dockerfile")
        assert dockerfile.is_relative_to(DEPLOY) and dockerfile.is_file(), name
        if name != "relaybot-init":  # the one-off init ends; everything else is watched
            assert service.get("healthcheck", {}).get("test"), f"{name}: no health check"
            assert service["restart"] == "unless-stopped", name
    declared = set(compose["volumes"])
    used = {source for s in services.values() for source, _ in _mounts(s)
            if not source.startswith(("/", "."))}
    assert used <= declared and {"pgdata", "mail", "dkim-keys", "relaybot-data"} <= used
    # only SMTP and the web pages face the world; IMAP, LMTP, milters, SQL stay inside
    published = {name for name, s in services.items() if s.get("ports")}
    assert published == {"postfix", "relaybot-web"}


def test_the_stack_tests_file_is_valid_compose_with_the_runs_own_ports_and_tags(
        tmp_path: Path) -> None:
    """What scripts/stack_test.sh starts (tests/stack/harness.py): docker-compose.yml
    moved onto the host's network, on this run's loopback ports and image tags, as
    Debian's docker-compose reads it."""
    from tests.stack import harness

    (tmp_path / "tls").mkdir()
    file = harness.loopback_compose(tmp_path)
    env = {**os.environ, **harness.stack_environment(tmp_path)}
    proc = subprocess.run([_tool("docker-compose"), "-p", harness.PROJECT, "-f", str(file),
                           "--project-directory", str(ROOT), "config"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "WARNING" not in proc.stderr, proc.stderr
    services = yaml.safe_load(proc.stdout)["services"]
    assert {s["image"].partition(":")[2] for s in services.values()} == {harness.PROJECT}
    assert not any(s.get("ports") for s in services.values())  # nothing published
    assert {s["network_mode"] for s in services.values()} == {"host"}
    text = proc.stdout
    for port in harness.PORTS.values():
        assert str(port) in text
    assert f"nameserver {harness.DNS_ADDRESS}" in (tmp_path / "resolv.conf").read_text()


def test_images_come_from_debian_packages() -> None:
    for dockerfile in sorted(DEPLOY.glob("*/Dockerfile")):
        text = dockerfile.read_text(encoding="utf-8")
        froms = re.findall(r"^FROM\s+(\S+)", text, flags=re.MULTILINE)
        assert froms == ["debian:12-slim"], dockerfile
        assert "apt-get install" in text, dockerfile
        assert "curl " not in text and "wget " not in text, dockerfile  # nothing from elsewhere
        for copied in re.findall(r"^COPY\s+(.+)\s+\S+$", text, flags=re.MULTILINE):
            base = ROOT if dockerfile.parent.name == "relaybot" else dockerfile.parent
            for source in copied.split():
                assert (base / source).exists(), f"{dockerfile}: COPY {source}"


def _mounts(service: dict[str, Any]) -> list[tuple[str, str]]:
    """(source, target) of a service's volumes, in either form docker-compose prints."""
    found = []
    for volume in service.get("volumes", []):
        if isinstance(volume, dict):
            found.append((str(volume["source"]), str(volume["target"])))
        else:
            source, target = str(volume).split(":")[:2]
            found.append((source, target))
    return found


def _subcommand(parser: argparse.ArgumentParser, name: str) -> bool:
    return any(isinstance(a, argparse._SubParsersAction) and name in a.choices
               for a in parser._actions)


def test_relaybot_services_run_real_commands(compose: dict[str, Any]) -> None:
    parser = build_parser()
    services = compose["services"]
    assert services["relaybot-init"]["command"] == ["init"]
    run = parser.parse_args(services["relaybot-run"]["command"])
    assert run.command == "run" and not run.once and run.alive_file == "/tmp/relaybot.alive"
    assert "/tmp/relaybot.alive" in " ".join(services["relaybot-run"]["healthcheck"]["test"])
    web = services["relaybot-web"]["command"]
    assert web == ["web", "--host", "0.0.0.0", "--port", "8080"]  # INTERFACE.md's options
    if _subcommand(parser, "web"):  # `relaybot web` comes with the web issue
        parsed = parser.parse_args(web)
        assert (parsed.host, str(parsed.port)) == ("0.0.0.0", "8080")
    [port] = services["relaybot-web"]["ports"]
    assert (port["target"] if isinstance(port, dict) else port.rsplit(":", 1)[1]) in (
        8080, "8080", "8080/tcp")
    # run and web start only after init has created or upgraded the database
    for name in ("relaybot-run", "relaybot-web"):
        assert services[name]["depends_on"]["relaybot-init"]["condition"] == \
            "service_completed_successfully"
    dockerfile = (DEPLOY / "relaybot" / "Dockerfile").read_text(encoding="utf-8")
    assert 'ENTRYPOINT ["relaybot"]' in dockerfile


def test_relaybot_settings_are_schema_keys_and_load(compose: dict[str, Any]) -> None:
    services = compose["services"]
    known = {f"RELAYBOT_{s.upper()}_{k.upper()}" for s, keys in SCHEMA.items() for k in keys}
    for name in RELAYBOT_SERVICES:
        env = services[name]["environment"]
        unknown = {k for k in env if k.startswith("RELAYBOT_")} - known - {"RELAYBOT_CONFIG"}
        assert not unknown, f"{name}: not settings of relaybot/config/settings.py: {unknown}"
        assert all(k.startswith("RELAYBOT_") for k in env), name
        # the values as Docker passes them make a valid config, with the secret init wrote
        cfg = load_config(Path("/nonexistent.toml"), environ={
            **{k: str(v) for k, v in env.items()}, "RELAYBOT_BOT_SECRET": "from-init"})
        assert cfg.database.url.startswith("postgresql+psycopg://relaybot:")
        host = re.search(r"@([^:/]+)", cfg.database.url)
        assert host is not None and host.group(1) in services
        assert cfg.imap.host in services and cfg.smtp.host in services
        assert cfg.bot.address == "relay@club.example"
        # the bot trusts exactly the Authentication-Results OpenDMARC writes (Postfix drops
        # every arriving one, whatever its id: tests/security/test_deploy_trust.py)
        assert cfg.bot.authserv_id == services["opendmarc"]["environment"]["AUTHSERV_ID"]
    # the data volume is where the image keeps relaybot.toml (RELAYBOT_CONFIG)
    dockerfile = (DEPLOY / "relaybot" / "Dockerfile").read_text(encoding="utf-8")
    config_dir = re.search(r"RELAYBOT_CONFIG=(\S+)/relaybot.toml", dockerfile)
    assert config_dir is not None
    for name in RELAYBOT_SERVICES:
        assert ("relaybot-data", config_dir.group(1)) in _mounts(services[name]), name


# --- the mail configs, checked by the Debian packages on this machine ----------------------

SAMPLE = {"MAIL_DOMAIN": "club.example", "MAIL_HOSTNAME": "mx.club.example",
          "AUTHSERV_ID": "mx.club.example", "MAIL_NETWORK": "172.30.25.0/24",
          "DKIM_SELECTOR": "relaybot"}


def _render(template: Path, names: str, out: Path, replace: dict[str, str] | None = None) -> Path:
    """A template rendered as its entrypoint renders it (envsubst, the same names)."""
    proc = subprocess.run([_tool("envsubst"), names], input=template.read_text("utf-8"),
                          env={**os.environ, **_entrypoint_defaults(template.parent.name),
                               **SAMPLE},
                          capture_output=True, text=True,
                          check=True)
    text = proc.stdout
    for old, new in (replace or {}).items():
        text = text.replace(old, new)
    out.write_text(text, encoding="utf-8")
    return out


def _entrypoint_defaults(service: str) -> dict[str, str]:
    """The values the entrypoint gives unset variables (``: "${NAME:=value}"``): the
    compose network's addresses and ports, which only the stack test changes."""
    text = (DEPLOY / service / "entrypoint.sh").read_text(encoding="utf-8")
    return dict(re.findall(r'"\$\{([A-Z_]+):=([^}]*)\}"', text))


def _entrypoint_names(service: str, template: str) -> str:
    """The variable list the entrypoint passes envsubst for this template."""
    text = (DEPLOY / service / "entrypoint.sh").read_text(encoding="utf-8")
    found = re.search(r"envsubst '([^']+)'[^\n]*(?:\\\n[^\n]*)?" + re.escape(template), text)
    assert found is not None, f"{service}/entrypoint.sh does not render {template}"
    return found.group(1)


@pytest.fixture
def postfix_dir(tmp_path: Path) -> Path:
    conf = tmp_path / "postfix"
    conf.mkdir()
    src = DEPLOY / "postfix"
    _render(src / "main.cf.in", _entrypoint_names("postfix", "main.cf.in"), conf / "main.cf",
            {"/etc/postfix/": f"{conf}/"})
    # copied as it is: it names no authserv-id (every arriving Authentication-Results goes)
    assert 'cp "$dir/header_checks" /etc/postfix/header_checks' in \
        (src / "entrypoint.sh").read_text(encoding="utf-8")
    shutil.copy(src / "header_checks", conf / "header_checks")
    # Debian's master.cf, as the image has it (the entrypoint's fallback: the .dist copy)
    master = next(p for p in (Path("/etc/postfix/master.cf"),
                              Path("/usr/share/postfix/master.cf.dist")) if p.exists()
                  ).read_text(encoding="utf-8")
    added = _render(src / "master.cf.in", _entrypoint_names("postfix", "master.cf.in"),
                    conf / "master.cf.added").read_text("utf-8")
    (conf / "master.cf").write_text(master + added)
    (conf / "vmailbox").write_text("relay@club.example OK\n")
    return conf


def test_postfix_config_is_valid_and_delivers_plus_addresses(postfix_dir: Path) -> None:
    postconf = _tool("postconf")

    def conf(*args: str) -> str:
        proc = subprocess.run([postconf, "-c", str(postfix_dir), *args], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
        return proc.stdout

    conf("-n")  # every parameter known, every value well formed
    assert conf("-h", "recipient_delimiter").strip() == "+"
    assert conf("-h", "virtual_mailbox_domains").strip() == "club.example"
    assert conf("-h", "virtual_transport").strip() == "lmtp:inet:dovecot:24"
    assert conf("-h", "smtpd_milters").strip() == "inet:opendkim:8891, inet:opendmarc:8893"
    assert conf("-h", "smtpd_tls_security_level").strip() == "may"
    services = conf("-M")  # master.cf: the bot's submission port, signed by OpenDKIM only
    assert re.search(r"^587\s+inet\s+n\s+-\s+n\s+-\s+-\s+smtpd", services, re.MULTILINE)
    assert "587/inet/smtpd_milters = inet:opendkim:8891" in conf("-P")
    proc = subprocess.run([_tool("postfix"), "-c", str(postfix_dir), "check"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    # the map Postfix looks relay+<game>@ up in, after stripping the +detail
    proc = subprocess.run([_tool("postmap"), "-c", str(postfix_dir), "-q", "relay@club.example",
                           f"texthash:{postfix_dir / 'vmailbox'}"], capture_output=True,
                          text=True)
    assert proc.stdout.strip() == "OK"


@pytest.fixture
def safe_tmp() -> Iterator[Path]:
    """A temp folder no other user can write to, up to the root: OpenDKIM refuses a config
    under /tmp (world-writable)."""
    # the checkout's own build/ unless the checkout itself lies under a world-writable
    # folder (a clone in /tmp): then one in the home folder
    candidates = [ROOT / "build", Path.home() / ".cache" / "relaybot-tests"]
    base = next(c for c in candidates if not _world_writable_above(c)) if any(
        not _world_writable_above(c) for c in candidates) else candidates[-1]
    base.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        yield Path(tmp)


def _world_writable_above(path: Path) -> bool:
    """True if ``path`` or a folder above it may be written by any user (OpenDKIM then
    refuses what lies inside)."""
    for folder in [path, *path.parents]:
        if folder.exists() and folder.stat().st_mode & 0o002:
            return True
    return False


def test_opendkim_config_is_valid(safe_tmp: Path) -> None:
    tmp_path = safe_tmp
    keys = tmp_path / "keys"
    keys.mkdir()
    subprocess.run([_tool("opendkim-genkey"), "-b", "1024", "-D", str(keys), "-d",
                    "club.example", "-s", "relaybot"], check=True, timeout=60)
    (tmp_path / "internal_hosts").write_text("127.0.0.1\n172.30.25.0/24\n")
    conf = _render(DEPLOY / "opendkim" / "opendkim.conf.in",
                   _entrypoint_names("opendkim", "relaybot.conf.in"), tmp_path / "opendkim.conf",
                   {"/etc/opendkim/keys/": f"{keys}/",
                    "/etc/opendkim/internal_hosts": str(tmp_path / "internal_hosts"),
                    "/run/opendkim/": f"{tmp_path}/"})
    text = conf.read_text()
    assert re.search(r"^AuthservID\s+dkim\.mx\.club\.example$", text, re.MULTILINE)
    assert re.search(r"^Domain\s+club\.example$", text, re.MULTILINE)
    proc = subprocess.run([_tool("opendkim"), "-n", "-x", str(conf)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_opendmarc_config_is_valid_and_writes_the_bots_authserv_id(tmp_path: Path) -> None:
    (tmp_path / "ignore_hosts").write_text("127.0.0.1\n::1\n")
    conf = _render(DEPLOY / "opendmarc" / "opendmarc.conf.in",
                   _entrypoint_names("opendmarc", "relaybot.conf.in"),
                   tmp_path / "opendmarc.conf",
                   {"/etc/opendmarc/ignore_hosts": str(tmp_path / "ignore_hosts"),
                    "/run/opendmarc/": f"{tmp_path}/"})
    text = conf.read_text()
    # the id relaybot's [bot] authserv_id trusts, and OpenDKIM's results as its input
    assert re.search(r"^AuthservID\s+mx\.club\.example$", text, re.MULTILINE)
    assert re.search(r"^TrustedAuthservIDs\s+dkim\.mx\.club\.example$", text, re.MULTILINE)
    assert re.search(r"^RejectFailures\s+false$", text, re.MULTILINE)
    proc = subprocess.run([_tool("opendmarc"), "-n", "-c", str(conf)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_dovecot_config_is_valid(tmp_path: Path) -> None:
    conf = _render(DEPLOY / "dovecot" / "dovecot.conf.in",
                   _entrypoint_names("dovecot", "relaybot.conf.in"), tmp_path / "dovecot.conf")
    proc = subprocess.run([_tool("doveconf"), "-c", str(conf), "-n"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "port = 24" in proc.stdout and "port = 143" in proc.stdout

    def setting(name: str) -> str:
        return subprocess.run([_tool("doveconf"), "-c", str(conf), "-h", name],
                              capture_output=True, text=True, timeout=60).stdout.strip()

    assert setting("recipient_delimiter") == "+"  # relay+<game>@ is relay@'s mail
    assert setting("lmtp_save_to_detail_mailbox") == "no"  # ... in INBOX, where relaybot reads


def test_entrypoints_are_shell_scripts_that_parse() -> None:
    scripts = sorted(DEPLOY.glob("*/entrypoint.sh"))
    assert {s.parent.name for s in scripts} == {"postgres", "dovecot", "postfix", "opendkim",
                                                "opendmarc"}
    for script in scripts:
        assert os.access(script, os.X_OK), f"{script} is not executable"
        proc = subprocess.run(["sh", "-n", str(script)], capture_output=True, text=True)
        assert proc.returncode == 0, f"{script}: {proc.stderr}"


def test_dovecot_config_delivers_plus_addresses_into_the_bots_inbox() -> None:
    """The deploy Dovecot config, run on this machine (paths and ports moved into a temp
    folder, nothing else changed): mail for relay+<game>@ arriving over LMTP, as Postfix
    hands it on, lands in relay@'s INBOX with the full address in Delivered-To, the
    folders relaybot moves mail to exist, and the delivery wakes relaybot's listener
    (Dovecot's push, relaybot-wake.lua: MessageNew)."""
    import smtplib
    import threading
    import time

    from imapclient import IMAPClient  # type: ignore[import-untyped]

    from relaybot.app.wake import WakeListener
    from tests.servers.dovecot import ensure_mail_user, free_port

    uid, gid = ensure_mail_user()
    root = Path(tempfile.mkdtemp(prefix="relaybot-deploy-dovecot-"))
    root.chmod(0o755)  # Dovecot's auth runs as another user and reads the users file here
    lmtp, imap = free_port(), free_port()
    woken = threading.Event()
    listener = WakeListener(("127.0.0.1", 0), woken.set)
    listener.start()
    shutil.copy(DEPLOY / "dovecot" / "relaybot-wake.lua", root / "relaybot-wake.lua")
    (root / "relaybot-wake.lua").chmod(0o644)
    assert _entrypoint_defaults("dovecot") == {
        "RELAY_USER": "relay", "DOVECOT_LISTEN": "*", "LMTP_PORT": "24", "IMAP_PORT": "143"}
    wake_url = re.search(r'RELAYBOT_WAKE_URL=([^}]+)\}',
                         (DEPLOY / "dovecot" / "entrypoint.sh").read_text()).group(1)
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    run = compose["services"]["relaybot-run"]
    # the entrypoint's URL is relaybot-run's fixed address and the port it listens on
    assert wake_url == (f"http://{run['networks']['mail']['ipv4_address']}:"
                        f"{run['environment']['RELAYBOT_IMAP_WAKE_LISTEN'].split(':')[1]}"
                        "/wake")
    host, port = listener.address
    main = _render(DEPLOY / "dovecot" / "dovecot.conf.in",
                   _entrypoint_names("dovecot", "relaybot.conf.in"), root / "deploy.conf",
                   {"/var/mail/vhosts": f"{root}/mail", "/etc/dovecot/users": f"{root}/users",
                    "/etc/dovecot/relaybot-wake.lua": f"{root}/relaybot-wake.lua",
                    "relaybot_wake_url = ": f"relaybot_wake_url = http://{host}:{port}/wake",
                    "/dev/stderr": f"{root}/dovecot.log", "/dev/stdout": f"{root}/dovecot.log",
                    "port = 24": f"port = {lmtp}", "port = 143": f"port = {imap}",
                    "listen = *": "listen = 127.0.0.1", "first_valid_uid = 100":
                    "first_valid_uid = 1", "mail_uid = vmail": f"mail_uid = {uid}",
                    "mail_gid = vmail": f"mail_gid = {gid}",
                    "args = uid=vmail gid=vmail": f"args = uid={uid} gid={gid}"})
    (root / "test.conf").write_text(
        f"!include {main}\nbase_dir = {root}/run\nstate_dir = {root}/state\n"
        f"instance_name = relaybot-deploy-{lmtp}\n", encoding="utf-8")
    hashed = subprocess.run([_tool("doveadm"), "pw", "-s", "SHA512-CRYPT", "-p", "imap-pw"],
                            capture_output=True, text=True, check=True).stdout.strip()
    (root / "users").write_text(f"relay@club.example:{hashed}\n", encoding="utf-8")
    (root / "users").chmod(0o644)
    (root / "mail").mkdir()
    os.chown(root / "mail", uid, gid)
    subprocess.run([_tool("dovecot"), "-c", str(root / "test.conf")], check=True, timeout=60)
    try:
        deadline = time.monotonic() + 30
        while True:  # wait until LMTP answers (started in the background)
            try:
                client = smtplib.LMTP("127.0.0.1", lmtp, timeout=10)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        with client:
            client.sendmail("player@example.org", ["relay+k7m2qx@club.example"],
                            b"From: player@example.org\r\nTo: relay+k7m2qx@club.example\r\n"
                            b"Subject: 1. e4\r\n\r\n1. e4\r\n")
        with IMAPClient("127.0.0.1", port=imap, ssl=False, timeout=10) as box:
            box.login("relay@club.example", "imap-pw")
            folders = {name for _flags, _sep, name in box.list_folders()}
            assert {"INBOX", "Processed", "Quarantine"} <= folders
            box.select_folder("INBOX")
            [msg_uid] = box.search("ALL")
            header = box.fetch([msg_uid], ["BODY.PEEK[HEADER]"])[msg_uid][b"BODY[HEADER]"]
            assert b"Delivered-To: relay+k7m2qx@club.example" in header, header
        # the LMTP delivery woke relaybot (the push is sent before LMTP answers 250)
        assert woken.wait(10), (root / "dovecot.log").read_text()
        assert listener.wakes == 1
    finally:
        listener.close()
        subprocess.run([_tool("doveadm"), "-c", str(root / "test.conf"), "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


def test_relayhost_sends_through_the_providers_submission_port(postfix_dir: Path,
                                                                tmp_path: Path) -> None:
    """RELAYHOST in .env: Postfix relays through it with TLS required and SASL from
    RELAYHOST_USER/PASSWORD (issue 28: port 25 is blocked by most providers)."""
    script = DEPLOY / "postfix" / "relayhost.sh"
    assert "relaybot-relayhost /etc/postfix" in \
        (DEPLOY / "postfix" / "entrypoint.sh").read_text(encoding="utf-8")
    postconf = _tool("postconf")
    env = {"PATH": f"{Path(postconf).parent}:/usr/bin:/bin"}

    def run(**values: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["sh", str(script), str(postfix_dir)], env={**env, **values},
                              capture_output=True, text=True, timeout=60)

    def conf(name: str) -> str:
        return subprocess.run([postconf, "-c", str(postfix_dir), "-h", name],
                              capture_output=True, text=True, timeout=60).stdout.strip()

    assert run(RELAYHOST="").returncode == 0
    assert conf("relayhost") == ""  # no relay host: straight to port 25, as before
    done = run(RELAYHOST="[smtp.example.net]:587", RELAYHOST_USER="apikey",
               RELAYHOST_PASSWORD="s3cret:with:colons")
    assert done.returncode == 0, done.stderr
    assert conf("relayhost") == "[smtp.example.net]:587"
    assert conf("smtp_tls_security_level") == "encrypt"
    assert conf("smtp_sasl_auth_enable") == "yes"
    assert conf("smtp_sasl_password_maps") == f"texthash:{postfix_dir}/sasl_passwd"
    secret = postfix_dir / "sasl_passwd"
    assert secret.read_text() == "[smtp.example.net]:587 apikey:s3cret:with:colons\n"
    assert secret.stat().st_mode & 0o077 == 0  # readable by its owner alone
    lookup = subprocess.run([_tool("postmap"), "-c", str(postfix_dir), "-q",
                             "[smtp.example.net]:587", f"texthash:{secret}"],
                            capture_output=True, text=True, timeout=60)
    assert lookup.stdout.strip() == "apikey:s3cret:with:colons"
    check = subprocess.run([_tool("postfix"), "-c", str(postfix_dir), "check"],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr
    assert run(RELAYHOST="[smtp.example.net]:465").returncode == 0
    assert conf("smtp_tls_wrappermode") == "yes"  # port 465: TLS from the first byte
    missing = run(RELAYHOST="[smtp.example.net]:587", RELAYHOST_USER="apikey")
    assert missing.returncode != 0 and "RELAYHOST_PASSWORD" in missing.stderr
