/**
 * A sample of the Spider-Pair analysis of docs/neighbours.md (the whole
 * 2,138 rows: scripts/spider-neighbours.ts): two false passes (humans: wrong;
 * they pass on the Spider database) that neighbours catch, and one pair
 * humans label correct that still passes on every neighbour.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluationRequest } from '../../src/core/evaluation/request.ts';
import { createNeighbourHost, type NeighbourHost } from '../../src/core/neighbours/host.ts';
import { evaluate } from '../../src/core/pipeline.ts';
import { openEngine } from '../../src/engines/node.ts';
import { FULL_SPIDER_SKIP, fullSpiderDir } from '../helpers/paths.ts';

interface Pair {
  id: string;
  db_id: string;
  gold_sql: string;
  pred_sql: string;
  label_spider_pair: boolean | null;
}
const SAMPLE = {
  'spider_pair/test_aug#row0354': 'coincidental',
  'spider_pair/test_aug#row0288': 'coincidental',
  'spider_pair/test_aug#row0103': 'pass',
} as const;

describe.skipIf(!fullSpiderDir)(
  `neighbours on full Spider dev data${fullSpiderDir ? '' : ` (skipped: ${FULL_SPIDER_SKIP})`}`,
  () => {
    let host: NeighbourHost;
    let pairs: Pair[] = [];
    beforeAll(() => {
      host = createNeighbourHost({ open: (name) => openEngine(name) });
      pairs = readFileSync(path.join(fullSpiderDir!, 'pairs.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Pair)
        .filter((p) => p.id in SAMPLE);
    });
    afterAll(async () => host?.close());

    it('catches the sampled false passes and keeps the correct pair', async () => {
      expect(pairs).toHaveLength(3);
      for (const p of pairs) {
        const engine = openEngine('sqlite');
        try {
          const file = path.join(fullSpiderDir!, 'database', p.db_id, `${p.db_id}.sqlite`);
          const loaded = await engine.load({
            name: p.db_id,
            files: [{ fileName: `${p.db_id}.sqlite`, format: 'sqlite', bytes: new Uint8Array(readFileSync(file)) }],
          });
          if (!loaded.ok) throw new Error(loaded.error.message);
          const report = await evaluate(
            evaluationRequest({
              expected_sql: p.gold_sql,
              actual_sql: p.pred_sql,
              context: { fixture: p.db_id, order_matters: /\border\s+by\b/i.test(p.gold_sql) },
              config: { neighbours: 8, enable_counterfactuals: false, neighbour_budget_ms: 120_000 },
            }),
            engine,
            { neighbourHost: host },
          );
          const expected = SAMPLE[p.id as keyof typeof SAMPLE];
          expect(report.evidence.result?.reasons[0]?.code === 'coincidental_match', p.id).toBe(
            expected === 'coincidental',
          );
          expect(report.deterministic_verdict, p.id).toBe(expected === 'pass' ? 'pass' : 'fail');
        } finally {
          await engine.close();
        }
      }
    }, 300_000);
  },
);
