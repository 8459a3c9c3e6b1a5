#!/bin/sh
# Render the config from the environment, check it, run OpenDMARC in the foreground.
set -eu
: "${MAIL_HOSTNAME:?set MAIL_HOSTNAME (in .env)}"
: "${AUTHSERV_ID:=$MAIL_HOSTNAME}"
: "${MAIL_NETWORK:=172.30.25.0/24}"
export AUTHSERV_ID
envsubst '${AUTHSERV_ID}' </etc/opendmarc/relaybot.conf.in >/etc/opendmarc.conf
printf '127.0.0.1\n::1\n%s\n' "$MAIL_NETWORK" >/etc/opendmarc/ignore_hosts
mkdir -p /run/opendmarc
chown opendmarc:opendmarc /run/opendmarc
opendmarc -n -c /etc/opendmarc.conf
exec opendmarc -f -c /etc/opendmarc.conf
