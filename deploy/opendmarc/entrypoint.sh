#!/bin/sh
# Render the config from the environment, check it, run OpenDMARC in the foreground.
set -eu
: "${MAIL_HOSTNAME:?set MAIL_HOSTNAME (in .env)}"
: "${AUTHSERV_ID:=$MAIL_HOSTNAME}"
# the milter's socket (the stack test moves it to a loopback port, tests/stack/)
: "${MILTER_SOCKET:=inet:8893}"
export AUTHSERV_ID MILTER_SOCKET
envsubst '${AUTHSERV_ID} ${MILTER_SOCKET}' </etc/opendmarc/relaybot.conf.in >/etc/opendmarc.conf
# loopback only: never the compose network (opendmarc.conf, IgnoreHosts)
printf '127.0.0.1\n::1\n' >/etc/opendmarc/ignore_hosts
mkdir -p /run/opendmarc
chown opendmarc:opendmarc /run/opendmarc
opendmarc -n -c /etc/opendmarc.conf
exec opendmarc -f -c /etc/opendmarc.conf
