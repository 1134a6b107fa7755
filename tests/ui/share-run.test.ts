/**
 * Small runs as share links (SPEC 7): a CLI run report round-trips through
 * the link and opens as the same report (the gate's check passes); a
 * one-character change or a cut is refused; a run past the size limit gets a
 * message that says so and what to do instead.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRunReport } from '../../src/core/gate/open-report.ts';
import type { RunReport } from '../../src/core/run/grade-run.ts';
import {
  decodeRunShare,
  encodeRunShare,
  MAX_RUN_SHARE_ENCODED,
  RUN_SHARE_PREFIX,
} from '../../src/ui/state/share-run.ts';
import { runCliSync } from '../helpers/cli.ts';

let dir: string;
let report: RunReport;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'share-run-'));
  const b = 'fixtures/benchmarks/bird-sample';
  const out = path.join(dir, 'bird.json');
  const r = runCliSync([
    'run',
    '--format',
    'bird',
    '--questions',
    `${b}/dev.json`,
    '--pred',
    `${b}/predict_dev.json`,
    '--db-dir',
    `${b}/dev_databases`,
    '--out',
    out,
  ]);
  if (r.code !== 1) throw new Error(`CLI exited ${r.code}: ${r.stderr}`);
  report = JSON.parse(readFileSync(out, 'utf8')) as RunReport;
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function link(r: RunReport = report): Promise<string> {
  const encoded = await encodeRunShare(r);
  if (!encoded.ok) throw new Error(encoded.message);
  return encoded.fragment;
}

describe('run share links', () => {
  it('carry the whole report: it opens with the same cases and counts', async () => {
    const fragment = await link();
    expect(fragment.startsWith(RUN_SHARE_PREFIX)).toBe(true);
    expect(fragment.length).toBeLessThan(MAX_RUN_SHARE_ENCODED);
    const decoded = await decodeRunShare(fragment);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    const opened = openRunReport('link', decoded.json);
    expect(opened.ok).toBe(true);
    if (opened.ok) expect(opened.value.report).toEqual(report);
  });

  it('refuse one-character changes and cuts', async () => {
    const fragment = await link();
    const body = fragment.slice(RUN_SHARE_PREFIX.length);
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    let opened = 0;
    // Every 331st position, 8 other characters there: none opens a (different) run.
    for (let i = 0; i < body.length; i += 331) {
      for (const c of ALPHABET.slice(0, 9)) {
        if (c === body[i]) continue;
        const changed = `${RUN_SHARE_PREFIX}${body.slice(0, i)}${c}${body.slice(i + 1)}`;
        if ((await decodeRunShare(changed)).ok) opened++;
      }
    }
    expect(opened).toBe(0);
    const cut = await decodeRunShare(fragment.slice(0, -40));
    expect(!cut.ok && cut.message).toMatch(/changed or cut|corrupt/);
  });

  it('a run too large for a link says so and points to the JSON report', async () => {
    // Many distinct cases (ids and reasons differ, so deflate cannot fold them into nothing).
    const cases = Array.from({ length: 400 }, (_, i) => ({
      ...report.cases[i % report.cases.length]!,
      id: `case-${i}-${Math.sin(i).toString(36)}`,
      reason: `reason ${Math.cos(i)}`,
    }));
    const big = { ...report, cases };
    const encoded = await encodeRunShare(big);
    expect(encoded.ok).toBe(false);
    if (!encoded.ok)
      expect(encoded.message).toMatch(
        /^This run is too large to share as a link \(400 cases, .*at most 65,536 characters.*export the JSON report and open that file in the app instead\.$/,
      );
  });
});
