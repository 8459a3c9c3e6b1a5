#!/bin/sh
# Render main.cf, master.cf additions, header_checks and the mailbox map from the
# environment, then run Postfix in the foreground.
set -eu
: "${MAIL_DOMAIN:?set MAIL_DOMAIN (in .env)}"
: "${MAIL_HOSTNAME:?set MAIL_HOSTNAME (in .env)}"
: "${MAIL_NETWORK:=172.30.25.0/24}"
: "${RELAY_USER:=relay}"
# the compose network's names and ports; the stack test runs every service on loopback
# ports instead (tests/stack/)
: "${SMTP_PORT:=25}" "${SUBMISSION_PORT:=587}" "${INET_INTERFACES:=all}"
: "${LMTP_ADDRESS:=dovecot:24}" "${OPENDKIM_MILTER:=opendkim:8891}" "${OPENDMARC_MILTER:=opendmarc:8893}"
export MAIL_DOMAIN MAIL_HOSTNAME MAIL_NETWORK SUBMISSION_PORT INET_INTERFACES LMTP_ADDRESS
export OPENDKIM_MILTER OPENDMARC_MILTER
dir=/etc/postfix/relaybot
envsubst '${MAIL_DOMAIN} ${MAIL_HOSTNAME} ${MAIL_NETWORK} ${INET_INTERFACES} ${LMTP_ADDRESS} ${OPENDKIM_MILTER} ${OPENDMARC_MILTER}' \
  <"$dir/main.cf.in" >/etc/postfix/main.cf
# every arriving Authentication-Results is dropped, whatever its id (header_checks)
cp "$dir/header_checks" /etc/postfix/header_checks
# master.cf from Debian's each start (the spool volume keeps queues, not config), plus
# the submission service; port 25 is the "smtp" service, moved only by SMTP_PORT
cp /usr/share/postfix/master.cf.dist /etc/postfix/master.cf
envsubst '${SUBMISSION_PORT} ${OPENDKIM_MILTER}' <"$dir/master.cf.in" >>/etc/postfix/master.cf
if [ "$SMTP_PORT" != 25 ]; then
  postconf -M "$SMTP_PORT/inet=$SMTP_PORT inet n - n - - smtpd"
  postconf -MX smtp/inet
fi
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
