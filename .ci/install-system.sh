#!/bin/sh
# System packages for relaybot's integration tests (Debian 12, run as root; idempotent).
#
# - dovecot-imapd, dovecot-core: the real IMAP server tests/servers/dovecot.py starts on
#   loopback from a config in a temp dir (the system instance is not used).
# - dovecot-submissiond, openssl: the OAuth 2.0 tests log in to Dovecot's submission
#   service (SMTP AUTH XOAUTH2 / OAUTHBEARER) and to an implicit-TLS port with a
#   throwaway certificate (tests/integration/test_oauth.py).
# - vmail: system user whose uid/gid the test Dovecot stores mail as (it refuses uid 0).
# - dovecot-lmtpd, docker-compose, postfix, opendkim, opendkim-tools, opendmarc,
#   gettext-base: the deployment tests validate docker-compose.yml and check the mail
#   configs of deploy/ with the Debian packages themselves (tests/integration/test_deploy.py).
set -eu

if [ "$(id -u)" -ne 0 ]; then
    echo "install-system.sh: run as root" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
PACKAGES="dovecot-core dovecot-imapd dovecot-lmtpd dovecot-submissiond openssl docker-compose postfix opendkim opendkim-tools opendmarc gettext-base"

missing=""
for pkg in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $pkg"
    fi
done

if [ -n "$missing" ]; then
    apt-get update -qq
    # postfix is installed for its tools (postconf, postfix check), not to serve mail here
    echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
    # shellcheck disable=SC2086  # word splitting of the package list is intended
    apt-get install -y -qq $missing >/dev/null
fi

if ! getent passwd vmail >/dev/null; then
    useradd --system --user-group --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin vmail
fi

/usr/sbin/dovecot --version >/dev/null
