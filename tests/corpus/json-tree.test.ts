/**
 * The linear JSON scan (src/core/corpus/json-tree.ts) must give the loaders what the YAML
 * parser gives for the same JSON text: the same values, the same node positions, and so the
 * same problems with the same lines and columns. A JSON corpus named *.yaml takes the YAML
 * path, so every comparison below is the two paths on one text.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isMap, isSeq, parse, type Node } from 'yaml';
import { loadCorpus } from '../../src/core/corpus/load-corpus.ts';
import { duplicateTopLevelKey } from '../../src/core/corpus/json-tree.ts';
import { Source } from '../../src/core/corpus/source.ts';

const enc = (text: string) => new TextEncoder().encode(text);
const allGoldens = parse(
  readFileSync(new URL('../../fixtures/corpora/execution_goldens.yaml', import.meta.url), 'utf8'),
) as { cases: unknown[] };
/** Eight cases cover every field the edits below touch; the YAML path is the slow one. */
const goldens: Record<string, unknown> = { ...allGoldens, cases: allGoldens.cases.slice(0, 8) };

function positions(source: Source, node: unknown, out: string[] = []): string[] {
  const n = node as Node;
  out.push(`${JSON.stringify(source.position(n))}${isMap(n) ? 'map' : isSeq(n) ? 'seq' : ''}`);
  if (isMap(n)) for (const p of n.items) positions(source, p.value, positions(source, p.key, out));
  else if (isSeq(n)) for (const item of n.items) positions(source, item, out);
  return out;
}

async function bothPaths(text: string) {
  const strip = (r: Awaited<ReturnType<typeof loadCorpus>>) => ({
    ...r,
    problems: r.problems.map((p) => ({ ...p, file: 'F' })),
  });
  const viaJson = await loadCorpus(enc(text), { file: 'corpus.json', knownFixtures: ['retail', 'retail_monthly'] });
  const viaYaml = await loadCorpus(enc(text), { file: 'corpus.yaml', knownFixtures: ['retail', 'retail_monthly'] });
  if (viaJson.ok && viaYaml.ok) viaYaml.loaded.file = viaJson.loaded.file;
  return { viaJson: strip(viaJson), viaYaml: strip(viaYaml) };
}

/** Mistakes a corpus author makes, each on a copy of the golden corpus. */
function variants(): Record<string, unknown>[] {
  const clone = () => structuredClone(goldens) as { cases: Record<string, unknown>[] } & Record<string, unknown>;
  const edits: ((c: ReturnType<typeof clone>) => void)[] = [
    () => {},
    (c) => (c.cases[1]!.id = c.cases[0]!.id),
    (c) => (c.cases[2]!.shape = 'scaler'),
    (c) => (c.cases[0]!.fixtur = 'retail'),
    (c) => ((c.cases[3]!.expected as { rows: unknown[][] }).rows[0]![0] = { nested: true }),
    (c) => delete c.cases[4]!.reference_sql,
    (c) => (c.cases[5]!.tags = 'not-a-list'),
    (c) => (c.case_count = 3),
    (c) => (c.cases[6]!.config = { float_tolerance: 'wide' }),
  ];
  return edits.map((edit) => {
    const c = clone();
    edit(c);
    return c;
  });
}

describe('JSON corpora: the linear scan and the YAML parser agree', () => {
  it('gives the same values and node positions on compact, indented and tab-indented JSON', () => {
    for (const text of [
      JSON.stringify(goldens),
      JSON.stringify(goldens, null, 2),
      JSON.stringify(goldens, null, '\t'),
      `  ${JSON.stringify(goldens, null, 1)}\r\n`,
    ]) {
      const yaml = new Source(text);
      const json = new Source(text, { json: true });
      expect(json.toJS(json.doc.contents)).toEqual(yaml.toJS(yaml.doc.contents));
      expect(positions(json, json.doc.contents)).toEqual(positions(yaml, yaml.doc.contents));
    }
  });

  it('reports the same problems, lines and columns as the YAML path for each kind of mistake', async () => {
    for (const corpus of variants()) {
      for (const text of [JSON.stringify(corpus, null, 2), JSON.stringify(corpus)]) {
        const { viaJson, viaYaml } = await bothPaths(text);
        expect(viaJson).toEqual(viaYaml);
      }
    }
  });

  it('leaves a duplicate key to the YAML parser, which reports it with its line', async () => {
    const text = '{\n  "corpus": "x",\n  "version": 1,\n  "version": 2,\n  "engine": "duckdb",\n  "cases": []\n}\n';
    const { viaJson, viaYaml } = await bothPaths(text);
    expect(viaJson).toEqual(viaYaml);
    expect(viaJson.problems[0]).toMatchObject({ code: 'syntax_error', line: 4, message: 'Map keys must be unique' });
  });

  it('keeps scalar values as YAML resolves them (escapes, big and negative numbers)', () => {
    const text =
      '{"a": "tab\\there \\u00e9 \\ud83d\\ude00", "b": -0, "c": 12345678901234567890123, "d": 1.5e3, "e": [true, false, null], "f": ""}';
    const yaml = new Source(text);
    const json = new Source(text, { json: true });
    expect(
      Object.is((json.toJS(json.doc.contents) as { b: number }).b, (yaml.toJS(yaml.doc.contents) as { b: number }).b),
    ).toBe(true);
    expect(json.toJS(json.doc.contents)).toEqual(yaml.toJS(yaml.doc.contents));
    expect(positions(json, json.doc.contents)).toEqual(positions(yaml, yaml.doc.contents));
  });
});

describe('duplicateTopLevelKey', () => {
  it('names a top-level key given twice, and only that', () => {
    expect(duplicateTopLevelKey('{"id": "a", "sql": "SELECT 1", "sql" : "SELECT 2"}')).toBe('sql');
    expect(duplicateTopLevelKey('{"id": "a", "sql": "SELECT \\"sql\\": 1"}')).toBeNull();
    expect(duplicateTopLevelKey('{"a": {"k": 1}, "b": {"k": 2}, "c": ["a", "a"]}')).toBeNull();
    expect(duplicateTopLevelKey('{"a\\u0062": 1, "ab": 2}')).toBe('ab');
    expect(duplicateTopLevelKey('[{"a": 1}, {"a": 1}]')).toBeNull();
  });
});
