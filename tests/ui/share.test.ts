/**
 * Share links carry the whole case and a checksum: a link round-trips exactly, and every
 * one-character change or cut of it is refused rather than opening another comparison.
 */
import { isDeepStrictEqual as isEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  checksumOf,
  decodeShare,
  encodeShare,
  SHARE_PREFIX,
  shareEngine,
  type SharedComparison,
} from '../../src/ui/state/share.ts';

const CASE: SharedComparison = {
  v: 3,
  engine: 'sqlite',
  fixture: 'retail_monthly',
  fixtureDigest: 'c'.repeat(64),
  question: 'How many orders of any status were placed in each month? One row per month, in calendar order.',
  expectedSql:
    "SELECT CAST(date_trunc('month', order_ts) AS DATE) AS month, count(*) AS orders FROM orders GROUP BY month ORDER BY month",
  actualSql:
    "SELECT CAST(date_trunc('month', order_ts) AS DATE) AS month, count(*) AS orders FROM orders GROUP BY month ORDER BY month DESC",
  orderMatters: true,
  shape: 'time_series',
  config: {
    comparison_mode: 'order-insensitive',
    numeric_abs_tolerance: 0,
    numeric_rel_tolerance: 0.000001,
    query_timeout_ms: 5000,
  },
  caseId: 'monthly-orders-by-month',
};
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

async function link(payload: SharedComparison = CASE): Promise<string> {
  const encoded = await encodeShare(payload);
  if (!encoded.ok) throw new Error(encoded.message);
  return encoded.fragment;
}

describe('share links', () => {
  it('round-trip everything that decides the verdict', async () => {
    const decoded = await decodeShare(await link());
    expect(decoded).toEqual({ ok: true, value: CASE });
  });

  it('refuse every one-character change (no change decodes to another comparison)', async () => {
    const fragment = await link();
    const body = fragment.slice(SHARE_PREFIX.length);
    let tries = 0;
    const opened: string[] = [];
    for (let i = 0; i < body.length; i++) {
      // Three substitutes per position, spread over the alphabet.
      for (const step of [1, 22, 43]) {
        const swapped = ALPHABET[(ALPHABET.indexOf(body[i]!) + step) % ALPHABET.length]!;
        const changed = `${SHARE_PREFIX}${body.slice(0, i)}${swapped}${body.slice(i + 1)}`;
        tries++;
        const decoded = await decodeShare(changed);
        // Deflate's last byte can end in bits no code reads: flipping one gives the same comparison, not another.
        if (decoded.ok && !isEqual(decoded.value, CASE)) opened.push(`${i}:${swapped}`);
        else if (decoded.ok) expect(i).toBeGreaterThanOrEqual(body.length - 2);
        else expect(decoded.message).toMatch(/changed or cut|corrupt|not a SQL Verdict comparison/);
      }
    }
    expect(tries).toBeGreaterThan(300);
    expect(opened).toEqual([]);
  });

  it('refuse a cut link, saying so', async () => {
    const fragment = await link();
    for (const keep of [0.5, 0.9, 0.99]) {
      const cut = fragment.slice(0, Math.floor(fragment.length * keep));
      const decoded = await decodeShare(cut);
      expect(decoded.ok).toBe(false);
      if (!decoded.ok) expect(decoded.message).toMatch(/changed or cut|corrupt/);
    }
  });

  it('refuse a version-1 link (it lacked order, shape and config)', async () => {
    const bytes = new TextEncoder().encode(
      JSON.stringify({
        v: 1,
        fixture: 'retail',
        question: 'q',
        expectedSql: 'SELECT 1',
        actualSql: 'SELECT 1',
        orderMatters: false,
      }),
    );
    const compressed = new Uint8Array(
      await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'))).arrayBuffer(),
    );
    const body = Buffer.from(compressed).toString('base64url');
    const decoded = await decodeShare(`${SHARE_PREFIX}${body}`);
    expect(decoded).toMatchObject({ ok: false, message: expect.stringMatching(/older version/) });
  });

  /** A fragment as an encoder of any version would write it: the payload with its checksum, deflated. */
  async function written(payload: Record<string, unknown>): Promise<string> {
    const bytes = new TextEncoder().encode(JSON.stringify({ ...payload, checksum: await checksumOf(payload) }));
    const compressed = new Uint8Array(
      await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'))).arrayBuffer(),
    );
    return `${SHARE_PREFIX}${Buffer.from(compressed).toString('base64url')}`;
  }

  it('open a version-2 link (no engine recorded) on DuckDB, saying so', async () => {
    const { engine: _engine, v: _v, ...rest } = CASE;
    const decoded = await decodeShare(await written({ v: 2, ...rest }));
    expect(decoded).toEqual({
      ok: true,
      value: { ...CASE, engine: 'duckdb' },
      notice: expect.stringMatching(/did not record the engine: it opened on DuckDB/),
    });
  });

  it('refuse a link whose engine is not one the app runs, naming the field', async () => {
    const decoded = await decodeShare(await written({ ...CASE, engine: 'oracle' }));
    expect(decoded).toEqual({
      ok: false,
      message: 'This share link is corrupt: field engine must be one of duckdb, sqlite, pglite.',
    });
  });

  it('refuse a link with a field of the wrong type, naming the field and what it must be', async () => {
    // Before: "fields are missing or of the wrong type", whichever field it was.
    const cases: [Record<string, unknown>, string][] = [
      [{ expectedSql: 5 }, 'field expectedSql must be text'],
      [{ fixture: { a: 1 } }, 'field fixture must be text'],
      [{ orderMatters: 'yes' }, 'field orderMatters must be true or false'],
      [{ config: [1] }, 'field config must be an object or null'],
      [{ caseId: 7 }, 'field caseId must be text'],
      [{ question: undefined }, 'field question is missing'],
    ];
    for (const [patch, why] of cases) {
      const decoded = await decodeShare(await written({ ...CASE, ...patch }));
      expect(decoded).toEqual({ ok: false, message: `This share link is corrupt: ${why}.` });
    }
  });

  it("share a run's case on the engine it was graded on (PostgreSQL as PGlite)", () => {
    expect(['duckdb', 'sqlite', 'pglite', 'postgres', 'something-else'].map(shareEngine)).toEqual([
      'duckdb',
      'sqlite',
      'pglite',
      'pglite',
      'duckdb',
    ]);
  });
});
