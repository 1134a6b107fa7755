/**
 * Report 1.1.0's glossary name: per_column_mismatch_map (seed 001, Layer 4)
 * is the field; mismatch_map is its identical alias for the 1.1.x reports
 * only, marked deprecated in docs/report.schema.json.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPORT_VERSION } from '../../src/core/report/report.ts';
import { repoRoot } from '../helpers/paths.ts';

const goldenDir = path.join(repoRoot, 'tests', 'golden', 'flawed-run');
const goldens = readdirSync(goldenDir)
  .filter((f) => f.endsWith('.json') && !f.endsWith('.actual.json'))
  .map((f) => JSON.parse(readFileSync(path.join(goldenDir, f), 'utf8')));

describe('per_column_mismatch_map', () => {
  it('every golden report carries it, with mismatch_map as the identical alias right after it', () => {
    expect(goldens.length).toBe(64);
    for (const r of goldens) {
      if (!('report_version' in r)) continue;
      expect(r.report_version).toBe(REPORT_VERSION);
      expect(r.mismatch_map).toEqual(r.per_column_mismatch_map);
      const keys = Object.keys(r);
      expect(keys.indexOf('mismatch_map')).toBe(keys.indexOf('per_column_mismatch_map') + 1);
    }
    expect(
      goldens.some((r) => r.per_column_mismatch_map?.some((c: { mismatch_rate: number }) => c.mismatch_rate > 0)),
    ).toBe(true);
  });

  it('the published schema requires it and documents mismatch_map as a deprecated alias for 1.1.x', () => {
    const schema = JSON.parse(readFileSync(path.join(repoRoot, 'docs', 'report.schema.json'), 'utf8'));
    expect(REPORT_VERSION).toBe('1.1.0');
    expect(schema.required).toContain('per_column_mismatch_map');
    expect(schema.properties.mismatch_map.deprecated).toBe(true);
    expect(schema.properties.mismatch_map.description).toMatch(/alias of per_column_mismatch_map.*1\.1\.x only/);
  });
});
