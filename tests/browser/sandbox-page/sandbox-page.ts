/**
 * The attack page (built only by tests/browser/sandbox.test.ts, never
 * shipped): the engines as the app runs them — a supervised engine host Web
 * Worker per engine — fed the attack list of tests/engines/attacks.ts. For
 * each attack it reports the outcome and whether the digest and the sandbox
 * state stayed as they were after loading.
 */
import type { EngineName } from '../../../src/core/engine.ts';
import { openEngine } from '../../../src/engines/browser.ts';
import { AS_OF, ATTACK_DUMP, CLOCK, ENGINE_ATTACKS, statementAttacks } from '../../engines/attacks.ts';

export interface AttackResult {
  sql: string;
  ok: boolean;
  code?: string;
  kind?: string;
  expectedKind?: string;
  /** Cell [0][0] when the query ran (clock probes), as text. */
  cell?: string;
  frozen?: string;
  stateSame: boolean;
  digestSame: boolean;
}

const text = (v: unknown) => (typeof v === 'bigint' ? `${v}n` : JSON.stringify(v));

async function run(
  engineName: EngineName,
): Promise<{ version: string; attacks: AttackResult[]; clock: AttackResult[] }> {
  const engine = openEngine(engineName, { memoryLimit: '256MB' });
  try {
    const loaded = await engine.load({
      name: 'attacks',
      files: [{ fileName: 'attacks.sql', format: 'sql', bytes: new TextEncoder().encode(ATTACK_DUMP) }],
      asOf: AS_OF,
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const before = await engine.sandboxState();
    if (!before.ok) throw new Error(before.error.message);
    const state = JSON.stringify(before.value);
    const probe = async (sql: string): Promise<AttackResult> => {
      const outcome = await engine.execute(sql);
      const after = await engine.sandboxState();
      const digest = await engine.contentDigest();
      return {
        sql,
        ok: outcome.ok,
        ...(outcome.ok
          ? { cell: text(outcome.value.rows[0]?.[0]) }
          : {
              code: outcome.error.code,
              ...(outcome.error.statement_kind ? { kind: outcome.error.statement_kind } : {}),
            }),
        stateSame: after.ok && JSON.stringify(after.value) === state,
        digestSame: digest.ok && digest.value === loaded.value.contentDigest,
      };
    };
    const attacks: AttackResult[] = [];
    for (const a of [...statementAttacks((name) => `/tmp/${name}`), ...ENGINE_ATTACKS[engineName]])
      attacks.push({ ...(await probe(a.sql)), ...(a.kind ? { expectedKind: a.kind } : {}) });
    const clock: AttackResult[] = [];
    for (const c of CLOCK[engineName])
      clock.push({ ...(await probe(c.sql)), frozen: c.frozen === 'refused' ? 'refused' : text(c.frozen) });
    return { version: await engine.version(), attacks, clock };
  } finally {
    await engine.close();
  }
}

export interface BudgetResult {
  huge: { ok: boolean; code?: string; message?: string };
  next: unknown;
  restarts: number;
  under: number | null;
}

/** A 1M x 8 KB result under a small byte budget: stopped while it streams, the engine keeps serving. */
async function budget(engineName: Exclude<EngineName, 'postgres'>): Promise<BudgetResult> {
  const engine = openEngine(engineName, { memoryLimit: '256MB' });
  try {
    const loaded = await engine.load({
      name: 'attacks',
      files: [{ fileName: 'attacks.sql', format: 'sql', bytes: new TextEncoder().encode(ATTACK_DUMP) }],
      asOf: AS_OF,
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const hugeSql = {
      duckdb: "SELECT repeat('x', 8192) AS s FROM range(1000000)",
      sqlite:
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000000) SELECT n, printf('%.*c', 8192, 'x') AS s FROM r",
      pglite: "SELECT n, repeat('x', 8192) AS s FROM generate_series(1, 1000000) AS n",
    }[engineName];
    const huge = await engine.execute(hugeSql, { timeoutMs: 60_000, maxResultBytes: 4 * 1024 * 1024 });
    const next = await engine.execute('SELECT 41 + 1 AS n');
    const under = await engine.execute(
      {
        duckdb: "SELECT repeat('x', 1000) FROM range(100)",
        sqlite:
          "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100) SELECT printf('%.*c', 1000, 'x') FROM r",
        pglite: "SELECT repeat('x', 1000) FROM generate_series(1, 100)",
      }[engineName],
      { maxResultBytes: 4 * 1024 * 1024 },
    );
    return {
      huge: huge.ok ? { ok: true } : { ok: false, code: huge.error.code, message: huge.error.message },
      next: next.ok ? text(next.value.rows[0]?.[0]) : next.error.code,
      restarts: engine.restarts,
      under: under.ok ? under.value.rows.length : null,
    };
  } finally {
    await engine.close();
  }
}

(globalThis as unknown as { sqlVerdictSandbox: { run: typeof run; budget: typeof budget } }).sqlVerdictSandbox = {
  run,
  budget,
};
