#!/bin/sh
# Send the bot's mail through a relay host (a provider's submission service) instead of
# straight to each recipient's server on port 25, which most cloud providers and many
# ISPs block. With RELAYHOST empty nothing changes. Usage: relayhost.sh [CONFIG_DIR]
# (default /etc/postfix); reads RELAYHOST ("[smtp.example.net]:587"), RELAYHOST_USER and
# RELAYHOST_PASSWORD from the environment.
set -eu
conf="${1:-/etc/postfix}"
: "${RELAYHOST:=}"
if [ -z "$RELAYHOST" ]; then
  exit 0
fi
case "$RELAYHOST" in
  *" "*) echo "postfix: RELAYHOST must be one host, e.g. [smtp.example.net]:587" >&2; exit 2 ;;
esac
postconf -c "$conf" -e "relayhost = $RELAYHOST" \
  "smtp_tls_security_level = encrypt" \
  "smtp_tls_wrappermode = no"
case "$RELAYHOST" in
  *:465) postconf -c "$conf" -e "smtp_tls_wrappermode = yes" ;;
esac
if [ -n "${RELAYHOST_USER:-}" ]; then
  : "${RELAYHOST_PASSWORD:?set RELAYHOST_PASSWORD (in .env) with RELAYHOST_USER}"
  umask 077
  # texthash: read as it is, no postmap; readable by root alone
  printf '%s %s:%s\n' "$RELAYHOST" "$RELAYHOST_USER" "$RELAYHOST_PASSWORD" \
    >"$conf/sasl_passwd"
  postconf -c "$conf" -e "smtp_sasl_auth_enable = yes" \
    "smtp_sasl_password_maps = texthash:$conf/sasl_passwd" \
    "smtp_sasl_security_options = noanonymous" \
    "smtp_sasl_tls_security_options = noanonymous"
fi
