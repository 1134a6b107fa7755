import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formatSelfCheck,
  loadCorpus,
  manifestFixtureResolver,
  parseFixtureManifest,
  runSelfCheck,
  type FixtureManifestEntry,
} from '../../src/core/corpus/index.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { repoRoot } from '../helpers/paths.ts';

const manifest = parseFixtureManifest(readFileSync(path.join(repoRoot, 'fixtures/fixtures.json'), 'utf8'));
if (!manifest.ok) throw new Error('bad manifest');
const entries: FixtureManifestEntry[] = manifest.entries;
const fixtures = manifestFixtureResolver(
  entries,
  async (p) => new Uint8Array(await readFile(path.join(repoRoot, 'fixtures', p))),
);
const knownFixtures = entries.map((e) => e.name);

async function corpusFrom(file: string, edit?: (text: string) => string) {
  let bytes = new Uint8Array(readFileSync(path.join(repoRoot, file)));
  if (edit) bytes = new TextEncoder().encode(edit(new TextDecoder().decode(bytes)));
  const loaded = await loadCorpus(bytes, { file, knownFixtures });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  return loaded.loaded;
}

describe('self-check of the built-in corpora', () => {
  let engine: SupervisedEngine;
  beforeAll(() => {
    engine = openEngine('duckdb');
  });
  afterAll(async () => {
    await engine?.close();
  });

  it.each(['fixtures/corpora/execution_goldens.yaml', 'fixtures/corpora/refusal_battery.yaml'])(
    '%s passes with no finding at all',
    async (file) => {
      const corpus = await corpusFrom(file);
      const report = await runSelfCheck(corpus, engine, { fixtures });
      expect(report.findings, formatSelfCheck(report)).toEqual([]);
      expect(report.passed).toBe(true);
      expect(report.corpus_sha256).toBe(corpus.sha256);
      const withReference = corpus.corpus.cases.filter((c) => c.referenceSql).length;
      expect(report.references_checked).toBe(withReference);
      expect(report.case_results.filter((r) => r.status === 'pass')).toHaveLength(withReference);
      for (const f of report.fixtures)
        expect(f.content_digest).toBe(entries.find((e) => e.name === f.name)!.contentDigest);
    },
    240_000,
  );

  it('fails a corrupted copy, naming the case whose reference changed', async () => {
    const corrupted = await corpusFrom('fixtures/corpora/execution_goldens.yaml', (text) => {
      const marker = '  - id: retail-net-revenue-2024';
      const at = text.indexOf(marker);
      const end = text.indexOf('  - id:', at + marker.length);
      return (
        text.slice(0, at) + text.slice(at, end).replace('COALESCE(oi.discount, 0)', 'oi.discount') + text.slice(end)
      );
    });
    expect(corrupted.sha256).not.toBe((await corpusFrom('fixtures/corpora/execution_goldens.yaml')).sha256);
    const report = await runSelfCheck(corrupted, engine, {
      fixtures,
      only: ['retail-net-revenue-2024', 'retail-customer-count'],
    });
    expect(report.passed).toBe(false);
    expect(report.findings.map((f) => [f.code, f.case_id])).toEqual([['expected_mismatch', 'retail-net-revenue-2024']]);
    expect(report.findings[0]!.evidence![0]).toMatch(/^value_mismatch: .*35943\.79/);
    expect(formatSelfCheck(report)).toContain('✗ expected_mismatch retail-net-revenue-2024');
    expect(report.case_results.map((r) => [r.case_id, r.status])).toEqual([
      ['retail-customer-count', 'pass'],
      ['retail-net-revenue-2024', 'fail'],
    ]);
  }, 120_000);
});
