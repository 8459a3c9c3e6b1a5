#!/bin/sh
# Render the config, make the signing key on the first start (print its DNS record), run
# OpenDKIM in the foreground.
set -eu
: "${MAIL_DOMAIN:?set MAIL_DOMAIN (in .env)}"
: "${MAIL_HOSTNAME:?set MAIL_HOSTNAME (in .env)}"
: "${AUTHSERV_ID:=$MAIL_HOSTNAME}"
: "${DKIM_SELECTOR:=relaybot}"
: "${MAIL_NETWORK:=172.30.25.0/24}"
# the milter's socket (the stack test moves it to a loopback port, tests/stack/)
: "${MILTER_SOCKET:=inet:8891}"
export MAIL_DOMAIN AUTHSERV_ID DKIM_SELECTOR MILTER_SOCKET
envsubst '${MAIL_DOMAIN} ${AUTHSERV_ID} ${DKIM_SELECTOR} ${MILTER_SOCKET}' \
  </etc/opendkim/relaybot.conf.in >/etc/opendkim.conf
printf '127.0.0.1\n::1\n%s\n' "$MAIL_NETWORK" >/etc/opendkim/internal_hosts
keys=/etc/opendkim/keys
if [ ! -s "$keys/$DKIM_SELECTOR.private" ]; then
  opendkim-genkey -b 2048 -D "$keys" -d "$MAIL_DOMAIN" -s "$DKIM_SELECTOR"
  echo "opendkim: new key; publish this TXT record (docs/deploy.md, DNS):"
  cat "$keys/$DKIM_SELECTOR.txt"
fi
chown -R opendkim:opendkim "$keys"
chmod 600 "$keys/$DKIM_SELECTOR.private"
mkdir -p /run/opendkim
chown opendkim:opendkim /run/opendkim
opendkim -n -x /etc/opendkim.conf
exec opendkim -f -x /etc/opendkim.conf
