/**
 * Cross-engine agreement over a run (config.cross_engine): per case the
 * verdict on each engine, and for the run how many cases each engine passes,
 * fails or cannot run as not its dialect, and which cases depend on the
 * engine. Tallied as cases finish from each case's small verdict map, so a
 * streamed run keeps no case report.
 */
import type { CrossEngineEvidence, CrossEngineVerdict } from '../oracle/cross-engine.ts';

export interface CaseCrossEngine {
  engine_dependent: boolean;
  /** Engine name → its verdict; the graded engine first. */
  verdicts: Record<string, CrossEngineVerdict>;
}

export interface CrossEngineRunSummary {
  /** The engine the run was graded on. */
  graded_engine: string;
  /** Cases whose queries ran on other engines too (answered cases that were not blocked on the graded engine). */
  cases: number;
  engine_dependent: number;
  engine_dependent_ids: string[];
  /** Per engine: its verdict counts, and the cases where it refused a query as not its dialect. */
  engines: {
    engine: string;
    pass: number;
    fail: number;
    undecided: number;
    not_comparable: number;
    dialect_error: number;
    dialect_error_ids: string[];
  }[];
  /** Engines that could not load a fixture: its cases ran without them. */
  unavailable?: { fixture: string; engine: string; message: string }[];
}

export function caseCrossEngine(e: CrossEngineEvidence): CaseCrossEngine {
  return {
    engine_dependent: e.engine_dependent,
    verdicts: Object.fromEntries(e.engines.map((l) => [l.engine, l.verdict])),
  };
}

/**
 * The run's figures from its cases' verdicts. Cases are kept by corpus
 * position, so the summary lists them in corpus order however the cases
 * finish, and a merge of shards (report/merge.ts) tallies the same figures
 * from the merged cases.
 */
export class CrossEngineTally {
  private readonly byPosition = new Map<number, { id: string; cross_engine: CaseCrossEngine }>();

  constructor(private readonly graded: string) {}

  add(k: { id: string; cross_engine?: CaseCrossEngine }, position: number): void {
    if (k.cross_engine) this.byPosition.set(position, { id: k.id, cross_engine: k.cross_engine });
  }

  summary(): CrossEngineRunSummary {
    const dependent: string[] = [];
    const engines = new Map<string, CrossEngineRunSummary['engines'][number]>();
    const positions = [...this.byPosition.keys()].sort((a, b) => a - b);
    for (const p of positions) {
      const { id, cross_engine: x } = this.byPosition.get(p)!;
      if (x.engine_dependent) dependent.push(id);
      for (const [engine, verdict] of Object.entries(x.verdicts)) {
        let row = engines.get(engine);
        if (!row) {
          row = { engine, pass: 0, fail: 0, undecided: 0, not_comparable: 0, dialect_error: 0, dialect_error_ids: [] };
          engines.set(engine, row);
        }
        row[verdict]++;
        if (verdict === 'dialect_error') row.dialect_error_ids.push(id);
      }
    }
    return {
      graded_engine: this.graded,
      cases: positions.length,
      engine_dependent: dependent.length,
      engine_dependent_ids: dependent,
      engines: [...engines.values()],
    };
  }
}
