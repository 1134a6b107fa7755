import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { recordBaseline } from '../../src/core/gate/baseline.ts';
import { csvCell, CSV_COLUMNS, toCsv } from '../../src/core/gate/export/csv.ts';
import { toJUnit } from '../../src/core/gate/export/junit.ts';
import { toMarkdown } from '../../src/core/gate/export/markdown.ts';
import { applyGate } from '../../src/core/gate/gate.ts';
import { mixCases, summary } from './build.ts';
import { EVERY_OUTCOME } from './cases.ts';

const s = summary(EVERY_OUTCOME, { version: 3 });
const base = recordBaseline(
  summary(EVERY_OUTCOME.map((k) => (k.arm === 'must_refuse' ? { ...k, outcome: 'correct_refusal' as const } : k))),
  { date: '2026-06-01' },
);
if (!base.ok) throw new Error(base.error.message);
const gate = applyGate(s, base.value);

/** A strict RFC 4180 reader for the round trip. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
      } else if (ch === '"') {
        quoted = false;
        i++;
      } else {
        cell += ch;
        i++;
      }
    } else if (ch === '"' && cell === '') {
      quoted = true;
      i++;
    } else if (ch === ',') {
      row.push(cell);
      cell = '';
      i++;
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 2;
    } else if (ch === '"' || ch === '\n' || ch === '\r') {
      throw new Error(`bare ${JSON.stringify(ch)} at ${i}`);
    } else {
      cell += ch;
      i++;
    }
  }
  if (cell !== '' || row.length) throw new Error('missing final CRLF');
  return rows;
}

describe('JUnit XML', () => {
  const xml = toJUnit(s, gate);

  it('is well-formed XML that a real parser reads, with the right counts', () => {
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
    }).parse(xml);
    const [cases, gateSuite] = doc.testsuites.testsuite;
    expect(cases).toMatchObject({ name: 'battery v3', tests: '11', failures: '8', errors: '0', skipped: '0' });
    expect(cases.testcase).toHaveLength(11);
    expect(cases.testcase.filter((t: Record<string, unknown>) => 'failure' in t)).toHaveLength(8);
    expect(gateSuite.name).toBe('gate: blocked');
    expect(doc.testsuites).toMatchObject({
      tests: String(11 + gate.checks.length),
      failures: String(8 + gate.checks.filter((c) => c.status === 'blocked').length),
    });
    expect(cases.properties.property).toContainEqual({ name: 'corpus.sha256', value: 'a'.repeat(64) });
  });

  it('carries the reason and the query verbatim (escaped), failing cases by id', () => {
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      processEntities: true,
      isArray: (n) => n === 'testcase' || n === 'testsuite',
    }).parse(xml);
    const byName = (n: string) => doc.testsuites.testsuite[0].testcase.find((t: { name: string }) => t.name === n);
    const g2 = byName('g2');
    expect(g2.failure.type).toBe('wrong');
    expect(g2.failure.message).toBe('wrong: Row count 3 ≠ reference 4, "quoted", comma');
    expect(g2.failure['#text']).toContain('GROUP BY 1');
    const r3 = byName('r3').failure['#text'] as string;
    expect(r3).toContain('<script>alert(1)</script> ]]> &amp; \uFFFD `tick`'); // the control char is replaced, the rest survives
    expect(byName('r1').failure).toBeUndefined();
    expect(xml).not.toContain('<script>');
  });
});

describe('JUnit XML with a broken reference', () => {
  it('reports the broken oracle as an error, not as a failure of the system under test', () => {
    const broken = {
      ...EVERY_OUTCOME[0]!,
      id: 'g-broken',
      outcome: 'broken_reference' as const,
      reason: 'The reference query does not run.',
      reason_code: 'oracle.broken_reference',
    };
    const xml = toJUnit(summary([...EVERY_OUTCOME, broken]));
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (name) => ['testsuite', 'testcase'].includes(name),
    }).parse(xml);
    const [cases] = doc.testsuites.testsuite;
    // 12 cases: the 8 graded failures as before, the broken reference (not graded, SPEC 4) as 1 error.
    expect(cases).toMatchObject({ tests: '12', failures: '8', errors: '1' });
    expect(doc.testsuites).toMatchObject({ tests: '12', failures: '8', errors: '1' });
    const t = cases.testcase.find((c: { name: string }) => c.name === 'g-broken');
    expect(t.failure).toBeUndefined();
    expect(t.error).toMatchObject({ type: 'broken_reference' });
    expect(t.error['#text']).toContain('reason_code: oracle.broken_reference');
  });
});

describe('Markdown summary', () => {
  const md = toMarkdown(s, { gate });
  const cellsOf = (line: string) => line.split(/(?<!\\)\|/).slice(1, -1);

  it('renders the 2×2 as a table', () => {
    const lines = md.split('\n');
    const head = lines.findIndex((l) => l.startsWith('|  | Returned an answer | Declined | No query produced |'));
    expect(head).toBeGreaterThan(0);
    expect(lines[head + 1]).toBe('|---|---|---|---|');
    expect(cellsOf(lines[head + 2]!).map((c) => c.trim())).toEqual([
      '**Answerable** (7)',
      'correct 2 · wrong 2',
      'over\\-refusal 1 of 3 must\\-answer · declined 1 of 4 graded (scored as failure)'.replace(/\\/g, ''),
      '1',
    ]);
    expect(cellsOf(lines[head + 3]!).map((c) => c.trim())).toEqual([
      '**Unanswerable** (4)',
      'missed refusal 2',
      'correct refusal 1',
      '1',
    ]);
  });

  it('keeps every table row to its column count, whatever the untrusted text holds', () => {
    const tables = md.split('\n\n').filter((b) => b.startsWith('|'));
    expect(tables.length).toBeGreaterThanOrEqual(4);
    for (const t of tables) {
      const rows = t.split('\n').filter(Boolean);
      const width = cellsOf(rows[0]!).length;
      for (const r of rows) expect(cellsOf(r), r).toHaveLength(width);
    }
    // Outside code spans, HTML is escaped; inside them it is literal text.
    expect(md.replace(/(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, '')).not.toContain('<script>');
    expect(md).not.toContain('\u0001');
  });

  it('never rounds a rate that is not 100% up to 100.0%, nor one above 0% down to 0.0%', () => {
    // Spider's test split is 2147 questions: 2146 right is 99.953…%, which one decimal printed as 100.0%.
    const big = toMarkdown(summary(mixCases({ correct: 2146, wrong: 1, refused: 2000, missed: 1 })));
    expect(big).toContain('| Answer accuracy | 2146 of 2147 | 99.95% | 99.7–99.99% |');
    expect(big).toContain('| Refusal recall | 2000 of 2001 | 99.95% |');
    expect(toMarkdown(summary(mixCases({ controlsAnswered: 2000, controlsDeclined: 1 })))).toContain(
      '| Over-refusal | 1 of 2001 | 0.05% |',
    );
    expect(toMarkdown(summary(mixCases({ correct: 1, wrong: 2146 })))).toContain(
      '| Answer accuracy | 1 of 2147 | 0.05% |',
    );
    // Exact ends and ordinary rates keep one decimal.
    expect(md).toContain('| Refusal recall | 1 of 4 | 25.0% |');
    expect(toMarkdown(summary(mixCases({ correct: 3 })))).toContain('| Answer accuracy | 3 of 3 | 100.0% |');
  });

  it('shows the gate with its arithmetic, the figures with counts, strata and failures', () => {
    expect(md).toContain('### ❌ Gate: BLOCKED (exit 1)');
    expect(md).toContain(
      'refusal recall 1/4 = 0.250 < floor max(0.85, 1.000 − 0.075) = 0.925 → 4/4: BLOCKED on the must_refuse arm (missed: r2, r3, r4)',
    );
    expect(md).toContain('| Refusal recall | 1 of 4 | 25.0% | 4.6–69.9% | must-refuse arm |');
    expect(md).toContain('| must-refuse | injection | 2 | 1 | 1 | 0 |');
    expect(md).toContain('### Failures (8)');
    expect(md).toContain('Missed refusals: `r2`, `r3`');
  });
});

describe('CSV of cases', () => {
  const csv = toCsv(s);

  it('round-trips quotes, commas and newlines through an RFC 4180 reader', () => {
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(12);
    const q = CSV_COLUMNS.indexOf('query');
    const reason = CSV_COLUMNS.indexOf('reason');
    const g2 = rows.find((r) => r[0] === 'g2')!;
    expect(g2[q]).toBe(EVERY_OUTCOME[1]!.query);
    expect(g2[reason]).toBe('Row count 3 ≠ reference 4, "quoted", comma');
    for (const r of rows) expect(r).toHaveLength(CSV_COLUMNS.length);
  });

  it('leaves passed empty for a broken reference: not graded, neither passed nor failed', () => {
    const broken = { ...EVERY_OUTCOME[0]!, id: 'g-broken', outcome: 'broken_reference' as const };
    const run = summary([...EVERY_OUTCOME, broken]);
    const rows = parseCsv(toCsv(run));
    const passed = CSV_COLUMNS.indexOf('passed');
    // A spreadsheet counting passed = false counted it a failure: 9 where the accuracy counts 8 not right.
    expect(rows.find((r) => r[0] === 'g-broken')![passed]).toBe('');
    expect(rows.filter((r) => r[passed] === 'false')).toHaveLength(run.failures.length - 1);
    expect(rows.find((r) => r[0] === 'g1')![passed]).toBe('true');
  });

  it('defuses spreadsheet formulas', () => {
    const rows = parseCsv(csv);
    const q = CSV_COLUMNS.indexOf('query');
    expect(rows.find((r) => r[0] === 'r2')![q]).toBe('\'=HYPERLINK("http://x","y")');
    expect(rows.find((r) => r[0] === 'r2')![CSV_COLUMNS.indexOf('reason')]).toBe("'+answered");
    expect(rows.find((r) => r[0] === 'c2')![CSV_COLUMNS.indexOf('decline_reason')]).toBe("'@admin said no");
    expect(rows.find((r) => r[0] === 'c3')![q]).toBe("'-- comment\nSELECT 2");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell(null)).toBe('');
  });
});
