/**
 * The postgres engine against a real PostgreSQL server: the engine contract
 * (the same cells as PGlite), the attack list, the taxonomy and the built-in
 * fixtures, from tests/engines/pg-suite.ts. It needs SQL_VERDICT_DATABASE_URL
 * (.ci/run starts Debian's server with scripts/postgres-server.sh and sets it).
 */
import { describe, it } from 'vitest';
import { postgresEngineSuite } from './pg-suite.ts';

const url = process.env.SQL_VERDICT_DATABASE_URL;
if (url) postgresEngineSuite('postgres', { contract: true });
else
  describe('postgres server engine', () => {
    it.skip('skipped: no PostgreSQL server (set SQL_VERDICT_DATABASE_URL, e.g. from scripts/postgres-server.sh)', () => {});
  });
