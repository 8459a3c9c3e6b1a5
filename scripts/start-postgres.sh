#!/usr/bin/env bash
# Make sure a PostgreSQL server listens on 127.0.0.1:5432 with trust auth and a
# database "test" (the store tests run on it as well as on SQLite).
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  echo "== PostgreSQL already listening on 127.0.0.1:5432"
else
  echo "== starting PostgreSQL"
  version=$(ls /etc/postgresql | sort -n | tail -1)
  hba=/etc/postgresql/$version/main/pg_hba.conf
  if ! $SUDO grep -q "relaybot-tests" "$hba"; then
    # trust on loopback only, for the test database server on this machine
    $SUDO sed -i '1i host all all 127.0.0.1/32 trust # relaybot-tests\nhost all all ::1/128 trust # relaybot-tests' "$hba"
  fi
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='test'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -c "CREATE DATABASE test" >/dev/null
