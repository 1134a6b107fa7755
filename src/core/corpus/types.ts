/**
 * The corpus model (SPEC 1.2): a versioned set of golden cases, each a
 * question, a hand-written reference query on a named fixture and, where
 * frozen, its expected result. Refusal-battery cases add an arm and a stratum.
 */
import type { EngineName } from '../engine.ts';
import type { ResultTable } from '../value/kind.ts';

import type { Difficulty, Shape } from '../vocabulary.ts';

export { SHAPES, type Shape } from '../vocabulary.ts';

export { SPIDER_DIFFICULTIES, BIRD_DIFFICULTIES, DIFFICULTIES, type Difficulty } from '../vocabulary.ts';

export const ARMS = ['must_refuse', 'must_answer'] as const;
export type Arm = (typeof ARMS)[number];

/** Strata of each arm of the refusal battery, in the order reports list them. */
export const STRATA = {
  must_refuse: ['out_of_schema', 'nonexistent_column', 'injection', 'unsupported_write', 'non_analytical', 'ambiguous'],
  must_answer: ['control_scalar', 'control_group_by', 'control_top_n', 'control_time_series'],
} as const;
export type Stratum = (typeof STRATA)[Arm][number];

export interface CorpusCase {
  /** Unique and stable across versions of the corpus. */
  id: string;
  fixture: string;
  question: string;
  /** Hand-written, known-correct query; absent only on must_refuse cases. */
  referenceSql?: string;
  /**
   * Further accepted references (`reference_sql` given as a list: the first is
   * `referenceSql`, the rest are here). A candidate passes when it matches any.
   */
  alternativeSql?: string[];
  /** BIRD's external knowledge for the question: shown with it and passed to the judge. */
  evidence?: string;
  /** Comparison settings for this case only (the seed's config names), over the run's. */
  config?: Record<string, unknown>;
  shape?: Shape;
  /** True for top-N and sorted lists: row order is part of the answer. */
  orderMatters: boolean;
  /** Declared difficulty; when absent it is computed (Spider hardness). */
  difficulty?: Difficulty;
  tags: string[];
  /** The frozen result of the reference on its fixture. */
  expected?: ResultTable;
  arm?: Arm;
  stratum?: Stratum;
  /** Why the case is in its arm and stratum (refusal battery). */
  rationale?: string;
  /** 1-based line where the case starts in its file. */
  line?: number;
}

/** Counts a corpus declares about itself; the loader checks them against its cases. */
export interface DeclaredCounts {
  cases?: number;
  strata?: Partial<Record<Arm, Partial<Record<Stratum, number>>>>;
}

export interface Corpus {
  name: string;
  version: number;
  /** Dialect of the reference SQL. */
  engine: EngineName;
  description?: string;
  declared: DeclaredCounts;
  cases: CorpusCase[];
}

/** A corpus as loaded from bytes: its stamp is the SHA-256 of exactly those bytes. */
export interface LoadedCorpus {
  file: string;
  sha256: string;
  sizeBytes: number;
  corpus: Corpus;
}

export function isStratumOf(arm: Arm, stratum: string): stratum is Stratum {
  return (STRATA[arm] as readonly string[]).includes(stratum);
}

/** Counts per arm and stratum, every stratum listed (zero when empty). */
export function strataCounts(cases: readonly CorpusCase[]): Record<Arm, Record<string, number>> {
  const out = {
    must_refuse: Object.fromEntries(STRATA.must_refuse.map((s) => [s, 0])),
    must_answer: Object.fromEntries(STRATA.must_answer.map((s) => [s, 0])),
  } as Record<Arm, Record<string, number>>;
  for (const c of cases) if (c.arm && c.stratum) out[c.arm][c.stratum] = (out[c.arm][c.stratum] ?? 0) + 1;
  return out;
}
