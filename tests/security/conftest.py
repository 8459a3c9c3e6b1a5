"""The security suite runs on the same club as the integration tests: real Dovecot, the
SMTP sink, a real store (tests/integration/conftest.py), on SQLite and, where what reaches
the database matters, on PostgreSQL. The deploy stack's trust (test_deploy_trust.py) uses
the compose file and the rendered Postfix config of tests/integration/test_deploy.py."""

from __future__ import annotations

from tests.integration.conftest import club, db_url, pg_club  # noqa: F401  (fixtures)
from tests.integration.test_deploy import compose, postfix_dir  # noqa: F401  (fixtures)
