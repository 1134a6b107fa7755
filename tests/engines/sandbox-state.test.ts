/**
 * The attack list of tests/engines/attacks.ts in Node, on both engines, on a
 * fixture whose clock is frozen: 0 successes, and after each attack the
 * fixture digest and the engine state (settings, logs, temporary objects,
 * variables, sequences) are what they were after loading. The same table
 * runs in Chromium in tests/browser/sandbox.test.ts.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engines/node.ts';
import { nativeDuckDbProblem } from '../../src/engines/duckdb/native-available.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { sqlFixture } from '../helpers/fixtures.ts';
import { AS_OF, ATTACK_DUMP, CLOCK, ENGINE_ATTACKS, statementAttacks } from './attacks.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'sql-verdict-attacks-'));
const file = (name: string) => path.join(scratch, name).replace(/'/g, "''");

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// duckdb-native: the same engine expectations on native DuckDB (@duckdb/node-api, src/engines/duckdb/driver-native.ts),
// skipped, saying why, where its binding cannot load.
const nativeProblem = nativeDuckDbProblem();
for (const column of ['duckdb', 'duckdb-native', 'sqlite'] as const) {
  const engineName = column === 'duckdb-native' ? 'duckdb' : column;
  const skip = column === 'duckdb-native' && nativeProblem !== null;
  const suite = skip ? describe.skip : describe;
  const title = `attack list: ${column} in Node${skip ? ` (skipped: ${nativeProblem})` : ''}`;
  suite(title, () => {
    let engine: SupervisedEngine;
    let digest: string;
    let state: Record<string, string>;

    beforeAll(async () => {
      engine = openEngine(engineName, {
        memoryLimit: '256MB',
        ...(column === 'duckdb-native' ? { duckdbDriver: 'native' as const } : {}),
      });
      const loaded = await engine.load(sqlFixture('attacks', ATTACK_DUMP, AS_OF));
      if (!loaded.ok) throw new Error(loaded.error.message);
      digest = loaded.value.contentDigest;
      const before = await engine.sandboxState();
      if (!before.ok) throw new Error(before.error.message);
      state = before.value;
    }, 120_000);

    afterAll(async () => {
      await engine.close();
    });

    const attacks = [...statementAttacks(file), ...ENGINE_ATTACKS[engineName]];

    it.each(attacks.map((a) => [a.sql.replace(/\n/g, ' ').slice(0, 70), a] as const))(
      'refuses %s, state unchanged',
      async (_label, attack) => {
        const outcome = await engine.execute(attack.sql);
        expect(outcome.ok, `${attack.what}: ${attack.sql}`).toBe(false);
        if (!outcome.ok && attack.kind) {
          expect(outcome.error.code).toBe('sandbox.statement_rejected');
          expect(outcome.error.statement_kind).toBe(attack.kind);
        }
        expect(await engine.sandboxState()).toEqual({ ok: true, value: state });
        expect(await engine.contentDigest()).toEqual({ ok: true, value: digest });
      },
    );

    it('an attempt to turn logging on leaves nothing for a later case to read', async () => {
      await engine.execute("SELECT * FROM enable_logging('QueryLog')");
      const reference = await engine.execute("SELECT 'the answer key' AS reference_sql");
      expect(reference.ok).toBe(true);
      for (const read of [
        'SELECT * FROM duckdb_logs()',
        "SELECT message FROM duckdb_logs WHERE message LIKE '%answer key%'",
      ]) {
        const stolen = await engine.execute(read);
        expect(stolen.ok).toBe(false);
      }
      expect(await engine.sandboxState()).toEqual({ ok: true, value: state });
    });

    it.each(CLOCK[engineName].map((c) => [c.sql, c] as const))('frozen clock: %s', async (_label, probe) => {
      const outcome = await engine.execute(probe.sql);
      if (probe.frozen === 'refused') {
        expect(outcome.ok).toBe(false);
        return;
      }
      expect(outcome.ok, outcome.ok ? '' : outcome.error.message).toBe(true);
      if (outcome.ok) expect(outcome.value.rows[0]![0]).toEqual(probe.frozen);
    });

    it('still answers ordinary reads, including the harmless volatile functions', async () => {
      const sql =
        engineName === 'duckdb'
          ? 'SELECT count(*) AS n, max(length(CAST(uuid() AS VARCHAR))) AS u, min(random()) >= 0 AS r, current_schema() AS s FROM items'
          : 'SELECT count(*) AS n, max(length(hex(randomblob(4)))) AS u, min(random()) IS NOT NULL AS r FROM items';
      const outcome = await engine.execute(sql);
      expect(outcome.ok, outcome.ok ? '' : outcome.error.message).toBe(true);
      if (outcome.ok) expect(outcome.value.rows[0]![0]).toBe(3);
      expect(readdirSync(scratch)).toEqual([]);
    });

    // Last: it replaces the fixture.
    it('a fixture dump with a syntax error names its file and line once', async () => {
      const loaded = await engine.load(
        sqlFixture('broken', 'CREATE TABLE t (x INTEGER);\nINSERT INTO t VALUES (1);\nINSERT INTO t VALUES (2;\n'),
      );
      expect(loaded.ok).toBe(false);
      if (!loaded.ok) {
        expect(loaded.error.message).toMatch(/^broken\.sql:3: .*syntax error/);
        expect(loaded.error.message.match(/broken\.sql/g)).toHaveLength(1);
        expect(loaded.error.message).not.toMatch(/LINE \d/);
      }
    });
  });
}
