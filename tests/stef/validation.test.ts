import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MUTATIONS, mutateSql, parseRules, rocAuc } from '../../src/core/stef/index.ts';
import { DOC_LABELS, docRow, validateOnGoldens } from '../../scripts/stef-validate.ts';
import { repoRoot } from '../helpers/paths.ts';

describe('STEF validation on the execution goldens', () => {
  it('ROC AUC by Mann–Whitney', () => {
    expect(
      rocAuc([
        { score: 1, positive: true },
        { score: 0, positive: false },
      ]),
    ).toBe(1);
    expect(
      rocAuc([
        { score: 1, positive: true },
        { score: 1, positive: false },
      ]),
    ).toBe(0.5);
    expect(rocAuc([{ score: 1, positive: true }])).toBeNull();
  });
  it('mutations change the SQL and keep it parseable', () => {
    const sql =
      "SELECT region, sum(amount) AS t FROM sales WHERE status = 'paid' AND year(d) = 2024 GROUP BY region ORDER BY t DESC LIMIT 5";
    for (const m of MUTATIONS) {
      const out = mutateSql(sql, m);
      expect(out, m).not.toBeNull();
      expect(out).not.toBe(sql);
    }
  });
  it('docs/stef.md states the current figures (rerun scripts/stef-validate.ts --doc when this fails)', () => {
    const doc = readFileSync(path.join(repoRoot, 'docs/stef.md'), 'utf8');
    expect(doc).toContain(docRow(DOC_LABELS.plain, validateOnGoldens()));
    expect(doc).toContain(docRow(DOC_LABELS.conventions, validateOnGoldens({ conventions: true })));
    expect(doc).toContain(docRow(DOC_LABELS.heldOut, validateOnGoldens({ corpus: 'refusal_controls' })));
  });
  it('the sample R_app is valid', () => {
    expect(parseRules(JSON.parse(readFileSync(path.join(repoRoot, 'fixtures/stef/r_app.json'), 'utf8'))).ok).toBe(true);
  });
});
