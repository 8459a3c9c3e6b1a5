#!/bin/sh
# Render the config from the environment, write the one user (relay@MAIL_DOMAIN, password
# RELAY_IMAP_PASSWORD, stored hashed), run Dovecot in the foreground.
set -eu
: "${MAIL_DOMAIN:?set MAIL_DOMAIN (in .env)}"
: "${RELAY_IMAP_PASSWORD:?set RELAY_IMAP_PASSWORD (in .env)}"
: "${RELAY_USER:=relay}"
# where Dovecot listens: the compose network's defaults (the stack test moves them to
# loopback ports, tests/stack/)
: "${DOVECOT_LISTEN:=*}" "${LMTP_PORT:=24}" "${IMAP_PORT:=143}"
# where relaybot-run listens for Dovecot's push (docker-compose.yml gives it this fixed
# address); set it empty to turn the push off
: "${RELAYBOT_WAKE_URL=http://172.30.25.250:8025/wake}"
export MAIL_DOMAIN RELAY_USER DOVECOT_LISTEN LMTP_PORT IMAP_PORT RELAYBOT_WAKE_URL
envsubst '${MAIL_DOMAIN} ${RELAY_USER} ${DOVECOT_LISTEN} ${LMTP_PORT} ${IMAP_PORT} ${RELAYBOT_WAKE_URL}' \
  </etc/dovecot/relaybot.conf.in >/etc/dovecot/dovecot.conf
hash="$(doveadm pw -s SHA512-CRYPT -p "$RELAY_IMAP_PASSWORD")"
printf '%s@%s:%s\n' "$RELAY_USER" "$MAIL_DOMAIN" "$hash" >/etc/dovecot/users
chown root:dovecot /etc/dovecot/users
chmod 640 /etc/dovecot/users
mkdir -p /var/mail/vhosts
chown vmail:vmail /var/mail/vhosts
exec dovecot -F
