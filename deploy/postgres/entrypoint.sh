#!/bin/sh
# First start: initdb, the relaybot role (password from POSTGRES_PASSWORD) and database.
# Then PostgreSQL in the foreground, listening on the compose network only.
set -eu
: "${POSTGRES_USER:=relaybot}" "${POSTGRES_DB:=relaybot}"
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD (in .env)}"
mkdir -p "$PGDATA" /run/postgresql
chown postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  su postgres -s /bin/sh -c "initdb -D '$PGDATA' -U postgres --auth-local=peer \
      --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  su postgres -s /bin/sh -c "pg_ctl -D '$PGDATA' -o '-c listen_addresses=' -w start >/dev/null"
  su postgres -s /bin/sh -c "psql -v ON_ERROR_STOP=1 -q -d postgres" <<SQL
CREATE ROLE "$POSTGRES_USER" LOGIN PASSWORD '$(printf '%s' "$POSTGRES_PASSWORD" | sed "s/'/''/g")';
CREATE DATABASE "$POSTGRES_DB" OWNER "$POSTGRES_USER" ENCODING 'UTF8';
SQL
  su postgres -s /bin/sh -c "pg_ctl -D '$PGDATA' -m fast -w stop >/dev/null"
fi
# PGPORT (the port) and POSTGRES_LISTEN (the addresses) are for the stack test, which runs
# it on a loopback port beside the host's own PostgreSQL (tests/stack/)
exec su postgres -s /bin/sh -c "exec postgres -D '$PGDATA' -c listen_addresses='${POSTGRES_LISTEN:-*}' ${PGPORT:+-p $PGPORT}"
