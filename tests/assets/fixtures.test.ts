import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { sha256Hex } from '../../src/core/digest/sha256.ts';
import { generateFixtureFiles } from '../../scripts/fixtures/files.ts';
import { monthlyViolations } from '../../scripts/fixtures/monthly-properties.ts';
import { generateRetailMonthly } from '../../scripts/fixtures/retail-monthly.ts';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path));

describe('fixture generator', () => {
  it('reproduces the committed bytes of every generated file', async () => {
    const files = await generateFixtureFiles();
    expect(files.map((f) => f.path).sort()).toEqual([
      'fixtures/fixtures.json',
      'fixtures/retail.schema.yaml',
      'fixtures/retail.sql',
      'fixtures/retail_monthly.schema.yaml',
      'fixtures/retail_monthly.sql',
    ]);
    for (const file of files) {
      const committed = read(file.path);
      expect(
        await sha256Hex(committed),
        `${file.path} differs from a fresh generation: npm run fixtures:generate`,
      ).toBe(await sha256Hex(Buffer.from(file.content, 'utf8')));
    }
  });

  it('is deterministic within one process', async () => {
    const [a, b] = [await generateFixtureFiles(), await generateFixtureFiles()];
    expect(a).toEqual(b);
  });

  it('stamps each dump in the manifest with the SHA-256 of its bytes', async () => {
    const manifest = JSON.parse(read('fixtures/fixtures.json').toString('utf8'));
    expect(Object.keys(manifest.fixtures)).toEqual(['retail', 'retail_monthly']);
    for (const fixture of Object.values<Record<string, string>>(manifest.fixtures)) {
      expect(await sha256Hex(read(`fixtures/${fixture.dump}`))).toBe(fixture.dump_sha256);
      expect(fixture.as_of).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(fixture.engines).toEqual(['duckdb', 'sqlite', 'pglite']);
    }
  });

  it('builds retail_monthly with every monthly total and period delta pairwise distinct', () => {
    const { series } = generateRetailMonthly();
    expect(monthlyViolations(series)).toEqual([]);
    expect(series.revenueCents).toHaveLength(24);
  });

  it('flags a series whose periods cannot be told apart', () => {
    const { series } = generateRetailMonthly();
    const tied = { ...series, revenueCents: [...series.revenueCents] };
    tied.revenueCents[13] = tied.revenueCents[1]!; // Feb 2025 = Feb 2024: YoY delta 0
    expect(monthlyViolations(tied).join('\n')).toMatch(/monthly revenue.*repeated/);
    const counts = { ...series, orderCounts: [...series.orderCounts] };
    counts.orderCounts[2] = counts.orderCounts[1]! + (counts.orderCounts[1]! - counts.orderCounts[0]!);
    expect(monthlyViolations(counts).join('\n')).toMatch(/MoM order-count deltas/);
  });

  it('describes exactly the tables and columns the dump creates', () => {
    for (const name of ['retail', 'retail_monthly']) {
      const dump = read(`fixtures/${name}.sql`).toString('utf8');
      const schema = parse(read(`fixtures/${name}.schema.yaml`).toString('utf8'));
      const created = [...dump.matchAll(/CREATE TABLE (\w+) \(\n([\s\S]*?)\n\);/g)].map((m) => ({
        name: m[1],
        columns: m[2]!
          .split(',\n')
          .filter((l) => !l.includes('PRIMARY KEY'))
          .map((l) => l.trim().split(' ').slice(0, 2)),
      }));
      expect(schema.tables.map((t: { name: string }) => t.name)).toEqual(created.map((t) => t.name));
      for (const table of schema.tables) {
        const ddl = created.find((t) => t.name === table.name)!;
        expect(table.columns.map((c: { name: string; type: string }) => [c.name, c.type])).toEqual(ddl.columns);
        for (const column of table.columns) expect(column.description, `${table.name}.${column.name}`).toMatch(/\S/);
        const inserted = [
          ...dump.matchAll(new RegExp(`INSERT INTO ${table.name} VALUES\\n([\\s\\S]*?);\\n`, 'g')),
        ].reduce((n, m) => n + m[1]!.split('\n').length, 0);
        expect(inserted, `${name}.${table.name} row_count`).toBe(table.row_count);
      }
      expect(schema.as_of).toMatch(/Z$/);
    }
  });

  it('uses only pseudonymous, masked personal data', () => {
    for (const name of ['retail', 'retail_monthly']) {
      const dump = read(`fixtures/${name}.sql`).toString('utf8');
      const emails = [...dump.matchAll(/'([^' ]+@[^' ]+)'/g)].map((m) => m[1]!);
      expect(emails.length).toBeGreaterThan(100);
      for (const email of emails) expect(email).toMatch(/^.\*\*\*@example\.(com|org|net)$/u);
    }
  });
});
