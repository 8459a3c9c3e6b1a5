#!/bin/sh
# Render main.cf, master.cf additions, header_checks and the mailbox map from the
# environment, then run Postfix in the foreground.
set -eu
: "${MAIL_DOMAIN:?set MAIL_DOMAIN (in .env)}"
: "${MAIL_HOSTNAME:?set MAIL_HOSTNAME (in .env)}"
: "${MAIL_NETWORK:=172.30.25.0/24}"
: "${RELAY_USER:=relay}"
export MAIL_DOMAIN MAIL_HOSTNAME MAIL_NETWORK
dir=/etc/postfix/relaybot
envsubst '${MAIL_DOMAIN} ${MAIL_HOSTNAME} ${MAIL_NETWORK}' <"$dir/main.cf.in" >/etc/postfix/main.cf
# every arriving Authentication-Results is dropped, whatever its id (header_checks)
cp "$dir/header_checks" /etc/postfix/header_checks
[ -s /etc/postfix/master.cf ] || cp /usr/share/postfix/master.cf.dist /etc/postfix/master.cf
grep -q '^587 ' /etc/postfix/master.cf || cat "$dir/master.cf.in" >>/etc/postfix/master.cf
# a container has no chroot set up: every service runs unchrooted
postconf -F '*/*/chroot = n'
printf '%s@%s OK\n' "$RELAY_USER" "$MAIL_DOMAIN" >/etc/postfix/vmailbox
if [ ! -s /etc/ssl/relaybot/fullchain.pem ]; then
  echo "postfix: no TLS certificate in /etc/ssl/relaybot (docs/deploy.md): plain SMTP only" >&2
  postconf -e smtpd_tls_security_level=none
fi
# the bot's mail through the provider's relay host where port 25 is blocked (RELAYHOST)
relaybot-relayhost /etc/postfix
postfix check
exec postfix start-fg
