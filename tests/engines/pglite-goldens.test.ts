/**
 * The 64 execution goldens on PGlite: their reference SQL, with the dialect
 * ports of fixtures/corpora/ports/execution_goldens.postgres.yaml where DuckDB's text
 * is not PostgreSQL's, returns the corpus's frozen results (the self-check
 * passes with no finding), and the built-in fixtures load with DuckDB's digests.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formatSelfCheck,
  loadCorpus,
  manifestFixtureResolver,
  parseFixtureManifest,
  parseReferencePorts,
  portCorpus,
  runSelfCheck,
} from '../../src/core/corpus/index.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { repoRoot } from '../helpers/paths.ts';

const manifest = parseFixtureManifest(readFileSync(path.join(repoRoot, 'fixtures/fixtures.json'), 'utf8'));
if (!manifest.ok) throw new Error('bad manifest');
const entries = manifest.entries;
const fixtures = manifestFixtureResolver(
  entries,
  async (p) => new Uint8Array(await readFile(path.join(repoRoot, 'fixtures', p))),
);

async function portedGoldens() {
  const file = 'fixtures/corpora/execution_goldens.yaml';
  const loaded = await loadCorpus(new Uint8Array(readFileSync(path.join(repoRoot, file))), {
    file,
    knownFixtures: entries.map((e) => e.name),
  });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  const portsFile = 'fixtures/corpora/ports/execution_goldens.postgres.yaml';
  const ports = parseReferencePorts(readFileSync(path.join(repoRoot, portsFile), 'utf8'), portsFile);
  if (!ports.ok) throw new Error(ports.error.message);
  const ported = portCorpus(loaded.loaded, ports.value);
  if (!ported.ok) throw new Error(ported.error.message);
  return { original: loaded.loaded, ported: ported.value, portCount: Object.keys(ports.value.ports).length };
}

describe('execution goldens on PGlite', () => {
  let engine: SupervisedEngine;
  beforeAll(() => {
    engine = openEngine('pglite');
  });
  afterAll(async () => {
    await engine?.close();
  });

  it('every reference (12 ported, 52 as written) returns its frozen result: the self-check passes', async () => {
    const { original, ported, portCount } = await portedGoldens();
    expect(portCount).toBe(12);
    expect(
      ported.corpus.cases.filter((c, i) => c.referenceSql === original.corpus.cases[i]!.referenceSql),
    ).toHaveLength(64 - portCount);
    // The self-check budget is for a loaded machine: PGlite is single-threaded wasm.
    const report = await runSelfCheck(ported, engine, { fixtures, timeBudgetMs: 20_000 });
    expect(report.findings, formatSelfCheck(report)).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.engine).toBe('pglite');
    expect(report.references_checked).toBe(64);
    for (const f of report.fixtures)
      expect(f.content_digest).toBe(entries.find((e) => e.name === f.name)!.contentDigest);
  }, 600_000);

  it('the DuckDB text of a ported case does not run on PostgreSQL (the port is needed)', async () => {
    const { original } = await portedGoldens();
    const report = await runSelfCheck({ ...original, corpus: { ...original.corpus, engine: 'pglite' } }, engine, {
      fixtures,
      only: ['retail-orders-last-week'],
      timeBudgetMs: 20_000,
    });
    expect(report.findings.map((f) => [f.code, f.case_id])).toEqual([['reference_failed', 'retail-orders-last-week']]);
  }, 300_000);
});
