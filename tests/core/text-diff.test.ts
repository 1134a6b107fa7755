import { describe, expect, it } from 'vitest';
import { diffSqlText } from '../../src/core/sql/text-diff.ts';

describe('SQL text diff (word level)', () => {
  it('marks the changed words only, removal before addition, and ignores reflowed whitespace', () => {
    expect(
      diffSqlText('SELECT a,\n  b FROM t\nORDER BY x DESC LIMIT 5', 'SELECT a, b FROM t ORDER BY x DESC LIMIT 3'),
    ).toEqual([
      { op: 'same', text: 'SELECT a, b FROM t ORDER BY x DESC LIMIT ' },
      { op: 'removed', text: '5' },
      { op: 'added', text: '3' },
    ]);
    expect(
      diffSqlText('SELECT count(*) FROM orders', "SELECT count(DISTINCT id) FROM orders WHERE s = 'it''s'"),
    ).toEqual([
      { op: 'same', text: 'SELECT count(' },
      { op: 'removed', text: '*' },
      { op: 'added', text: 'DISTINCT id' },
      { op: 'same', text: ') FROM orders' },
      { op: 'added', text: " WHERE s = 'it''s'" },
    ]);
  });

  it('gives the candidate back from its same and added parts, even past the token budget', () => {
    const big = Array.from({ length: 3000 }, (_, i) => `c${i}`).join(', ');
    for (const [a, b] of [
      ['SELECT 1', 'SELECT 2'],
      ['', 'SELECT 1'],
      [`SELECT ${big} FROM t`, `SELECT ${big} FROM u\nWHERE x`],
    ] as const) {
      const parts = diffSqlText(a, b);
      expect(
        parts
          .filter((p) => p.op !== 'removed')
          .map((p) => p.text)
          .join(''),
      ).toBe(b);
    }
  });
});
