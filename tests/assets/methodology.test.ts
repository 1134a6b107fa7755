import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCorpus, parseFixtureManifest, strataCounts, type Corpus } from '../../src/core/corpus/index.ts';
import { sha256Hex } from '../../src/core/digest/sha256.ts';
import { readStamps } from '../../scripts/fixtures/methodology.ts';
import { repoRoot } from '../helpers/paths.ts';

const page = readFileSync(path.join(repoRoot, 'docs/methodology.md'), 'utf8');
const STAMP = 'node --import tsx scripts/fixtures/stamp-methodology.ts';
const manifest = parseFixtureManifest(readFileSync(path.join(repoRoot, 'fixtures/fixtures.json'), 'utf8'));
const corpora: Record<string, Corpus> = {};

beforeAll(async () => {
  for (const name of ['execution_goldens', 'refusal_battery']) {
    const file = `fixtures/corpora/${name}.yaml`;
    const loaded = await loadCorpus(new Uint8Array(readFileSync(path.join(repoRoot, file))), { file });
    if (!loaded.ok) throw new Error(file);
    corpora[name] = loaded.loaded.corpus;
  }
});

/** Cells of the table row whose first cell starts with `first`. */
function row(first: string): string[] {
  const line = page.split('\n').find((l) => l.startsWith(`| ${first} |`) || l.startsWith(`| ${first}`));
  if (!line) throw new Error(`no table row for ${first}`);
  return line
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
}

describe('docs/methodology.md', () => {
  it('stamps both corpora and both fixture dumps', () => {
    expect(readStamps(page).map((r) => r.path)).toEqual([
      'fixtures/corpora/execution_goldens.yaml',
      'fixtures/corpora/refusal_battery.yaml',
      'fixtures/retail.sql',
      'fixtures/retail_monthly.sql',
    ]);
  });

  it.each(readStamps(page).map((r) => [r.path, r] as const))('%s: digest and size are current', async (file, stamp) => {
    const bytes = new Uint8Array(readFileSync(path.join(repoRoot, file)));
    expect(stamp.sha256, `stale SHA-256 on line ${stamp.line}: run ${STAMP}`).toBe(await sha256Hex(bytes));
    if (stamp.bytes !== undefined)
      expect(stamp.bytes, `stale size on line ${stamp.line}: run ${STAMP}`).toBe(
        statSync(path.join(repoRoot, file)).size,
      );
    if (file.endsWith('.sql')) {
      if (!manifest.ok) throw new Error('manifest');
      const entry = manifest.entries.find((e) => `fixtures/${e.dump}` === file)!;
      expect(stamp.contentDigest, `stale content digest on line ${stamp.line}: run ${STAMP}`).toBe(entry.contentDigest);
      const cells = row(`\`${file}\``);
      expect(cells[1]).toBe(entry.asOf);
      expect(cells[2]).toBe(['customers', 'products', 'orders', 'order_items'].map((t) => entry.tables[t]).join(' / '));
    }
  });

  it('states the corpus sizes the files have', () => {
    const goldens = corpora.execution_goldens!.cases;
    const retail = goldens.filter((c) => c.fixture === 'retail').length;
    expect(row('`fixtures/corpora/execution_goldens.yaml`')[1]).toBe(
      `${goldens.length} questions (${retail} on \`retail\`, ${goldens.length - retail} on \`retail_monthly\`)`,
    );
    const battery = corpora.refusal_battery!.cases;
    const refuse = battery.filter((c) => c.arm === 'must_refuse').length;
    expect(row('`fixtures/corpora/refusal_battery.yaml`')[1]).toBe(
      `${battery.length} cases: ${refuse} must-refuse, ${battery.length - refuse} must-answer`,
    );
  });

  it('states the strata, difficulty and shape counts the corpora have', () => {
    const strata = strataCounts(corpora.refusal_battery!.cases);
    for (const [arm, counts] of Object.entries(strata))
      for (const [stratum, n] of Object.entries(counts))
        expect(page).toContain(`| ${arm.replace('_', '-')} | ${stratum} | ${n} |`);
    const goldens = corpora.execution_goldens!.cases;
    for (const d of ['easy', 'medium', 'hard', 'extra']) {
      const of = (f: string) => goldens.filter((c) => c.difficulty === d && c.fixture === f).length;
      expect(row(d).slice(0, 4)).toEqual([
        d,
        String(of('retail')),
        String(of('retail_monthly')),
        String(of('retail') + of('retail_monthly')),
      ]);
    }
    for (const s of ['scalar', 'group_by', 'top_n', 'time_series', 'rows'])
      expect(row(s)[1]).toBe(String(goldens.filter((c) => c.shape === s).length));
    const periodTags = ['mom', 'qoq', 'yoy', 'rolling-average', 'running-total', 'frame'];
    const periods = goldens.filter((c) => c.fixture === 'retail_monthly' && c.tags.some((t) => periodTags.includes(t)));
    expect(page).toContain(`On \`retail_monthly\`, ${periods.length} questions compare`);
  });
});
