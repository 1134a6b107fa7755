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

async function run(engineName: EngineName): Promise<{ version: string; attacks: AttackResult[]; clock: AttackResult[] }> {
  const engine = openEngine(engineName, { memoryLimit: '256MB' });
  try {
    const loaded = await engine.load({ name: 'attacks', files: [{ fileName: 'attacks.sql', format: 'sql', bytes: new TextEncoder().encode(ATTACK_DUMP) }], asOf: AS_OF });
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
        ...(outcome.ok ? { cell: text(outcome.value.rows[0]?.[0]) } : { code: outcome.error.code, ...(outcome.error.statement_kind ? { kind: outcome.error.statement_kind } : {}) }),
        stateSame: after.ok && JSON.stringify(after.value) === state,
        digestSame: digest.ok && digest.value === loaded.value.contentDigest,
      };
    };
    const attacks: AttackResult[] = [];
    for (const a of [...statementAttacks((name) => `/tmp/${name}`), ...ENGINE_ATTACKS[engineName]])
      attacks.push({ ...(await probe(a.sql)), ...(a.kind ? { expectedKind: a.kind } : {}) });
    const clock: AttackResult[] = [];
    for (const c of CLOCK[engineName]) clock.push({ ...(await probe(c.sql)), frozen: c.frozen === 'refused' ? 'refused' : text(c.frozen) });
    return { version: await engine.version(), attacks, clock };
  } finally {
    await engine.close();
  }
}

(globalThis as unknown as { sqlVerdictSandbox: { run: typeof run } }).sqlVerdictSandbox = { run };
