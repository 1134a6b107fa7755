/**
 * What the corpus browser shows of a loaded corpus: each case with the
 * difficulty it is counted as (stated, else computed with Spider's rules, as
 * grading does), and the counts by shape, difficulty, arm/stratum and fixture.
 * Plain data, so it crosses the worker boundary as is.
 */
import { caseDifficulty } from '../structure/hardness.ts';
import { dialectOfEngine } from '../structure/grammar.ts';
import type { LoadProblem } from './problems.ts';
import {
  BIRD_DIFFICULTIES,
  SPIDER_DIFFICULTIES,
  SHAPES,
  STRATA,
  strataCounts,
  type Arm,
  type DeclaredCounts,
  type LoadedCorpus,
} from './types.ts';

/** Key used in counts for a case without the attribute (a refusal case has no shape). */
export const NONE = 'none';

export interface DescribedCase {
  id: string;
  fixture: string;
  question: string;
  arm: Arm | null;
  stratum: string | null;
  shape: string | null;
  /** What the case is counted as; null when neither stated nor computable (no reference). */
  difficulty: string | null;
  /** Where `difficulty` comes from. */
  difficultySource: 'stated' | 'computed' | null;
  /** Spider's level from the reference SQL, when it parses. */
  computedDifficulty: string | null;
  /** Stated and computed disagree, or the reference could not be parsed. */
  difficultyNote: string | null;
  orderMatters: boolean;
  tags: string[];
  referenceSql: string | null;
  rationale: string | null;
  /** Rows in the frozen expected result; null when none is frozen. */
  expectedRows: number | null;
  line: number | null;
}

export interface CorpusDescription {
  file: string;
  /** The corpus's stamp: SHA-256 of exactly the bytes loaded. */
  sha256: string;
  sizeBytes: number;
  name: string;
  version: number;
  engine: string;
  description: string | null;
  declared: DeclaredCounts;
  /** Fixtures in the order cases first name them. */
  fixtures: string[];
  cases: DescribedCase[];
  counts: {
    shape: Record<string, number>;
    difficulty: Record<string, number>;
    /** arm → stratum → count, every stratum of an arm listed once the arm is used. */
    stratum: Partial<Record<Arm, Record<string, number>>>;
    fixture: Record<string, number>;
  };
  /** Warnings the loader reported (errors stop the load). */
  warnings: LoadProblem[];
}

function tally(keys: readonly string[], values: (string | null)[]): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(keys.map((k) => [k, 0]));
  for (const v of values) out[v ?? NONE] = (out[v ?? NONE] ?? 0) + 1;
  // A NONE bucket is listed only when some case falls in it.
  if (out[NONE] === 0) delete out[NONE];
  return out;
}

export function describeCorpus(loaded: LoadedCorpus, warnings: LoadProblem[] = []): CorpusDescription {
  const corpus = loaded.corpus;
  const cases: DescribedCase[] = corpus.cases.map((c) => {
    // BIRD's labels are kept as they are: Spider's rules neither replace nor second-guess them.
    const bird = (BIRD_DIFFICULTIES as readonly string[]).includes(c.difficulty ?? '');
    const d =
      c.referenceSql && !bird
        ? caseDifficulty(c.referenceSql, dialectOfEngine(corpus.engine), c.difficulty ?? null)
        : null;
    const difficulty = bird ? c.difficulty! : (d?.difficulty ?? c.difficulty ?? null);
    return {
      id: c.id,
      fixture: c.fixture,
      question: c.question,
      arm: c.arm ?? null,
      stratum: c.stratum ?? null,
      shape: c.shape ?? null,
      difficulty,
      difficultySource: c.difficulty ? 'stated' : difficulty ? 'computed' : null,
      computedDifficulty: d?.computed ?? null,
      difficultyNote: d?.warning ?? null,
      orderMatters: c.orderMatters,
      tags: c.tags,
      referenceSql: c.referenceSql ?? null,
      rationale: c.rationale ?? null,
      expectedRows: c.expected ? c.expected.rows.length : null,
      line: c.line ?? null,
    };
  });
  const fixtures = [...new Set(cases.map((c) => c.fixture))];
  const strata = strataCounts(corpus.cases);
  const usedArms = (Object.keys(STRATA) as Arm[]).filter((arm) => corpus.cases.some((c) => c.arm === arm));
  return {
    file: loaded.file,
    sha256: loaded.sha256,
    sizeBytes: loaded.sizeBytes,
    name: corpus.name,
    version: corpus.version,
    engine: corpus.engine,
    description: corpus.description ?? null,
    declared: corpus.declared,
    fixtures,
    cases,
    counts: {
      shape: tally(
        SHAPES,
        cases.map((c) => c.shape),
      ),
      difficulty: tally(
        SPIDER_DIFFICULTIES,
        cases.map((c) => c.difficulty),
      ),
      stratum: Object.fromEntries(usedArms.map((arm) => [arm, strata[arm]])),
      fixture: tally(
        fixtures,
        cases.map((c) => c.fixture),
      ),
    },
    warnings,
  };
}
