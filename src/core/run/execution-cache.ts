/**
 * Results of queries that cannot differ from one run to the next, kept per
 * engine: Spider's 8,003 pairs have only 1,234 distinct references, and a
 * prediction often equals its reference. A cached answer is the one the
 * engine gave for the same text on the same fixture content with the same
 * row limit, so no verdict can change. Not cached: a text that reads the
 * clock or calls a random/sequence function (the golden lint's word lists),
 * a timing measurement (`measure`: its time is the point), and every failure
 * (a timeout or an exhausted budget depends on the moment). A query asked
 * for while the same one runs waits for it instead of running twice.
 */
import { FROZEN_CLOCK_FUNCTIONS, NONDETERMINISTIC, UNFROZEN_CLOCK_FUNCTIONS } from '../corpus/lint.ts';
import { findWordsIn, nowLiteralsIn, tokenize } from '../corpus/sql-tokens.ts';
import { DEFAULT_MAX_ROWS, type Engine, type ExecuteOptions, type ExecuteOutcome } from '../engine.ts';
import { LruCache } from '../structure/memo.ts';

const VOLATILE = [...NONDETERMINISTIC, ...FROZEN_CLOCK_FUNCTIONS, ...UNFROZEN_CLOCK_FUNCTIONS];
/**
 * A text none of whose characters spell a volatile name is repeatable without
 * tokenizing it (most texts; 'now' as SQLite's clock literal is among the names).
 */
const MAYBE_VOLATILE = new RegExp(VOLATILE.join('|'), 'i');
/** Asked on every execute: a reference is executed once per case that uses it. */
const repeatable = new LruCache<boolean>(4096);

/** Whether two executions of this text on the same data always give the same rows. */
export function isRepeatable(sql: string): boolean {
  if (!MAYBE_VOLATILE.test(sql)) return true;
  let answer = repeatable.get(sql);
  if (answer === undefined) {
    const tokens = tokenize(sql);
    answer = findWordsIn(tokens, VOLATILE).length === 0 && nowLiteralsIn(tokens).length === 0;
    repeatable.set(sql, answer);
  }
  return answer;
}

export interface ExecutionCacheOptions {
  /** Cells kept at most over all entries (the oldest entries go first). */
  maxCells?: number;
  /** A result larger than this is never kept. */
  maxEntryCells?: number;
}

/** An LRU of successful results, keyed by fixture content, row and byte limits and the exact text. */
export class ExecutionCache {
  private readonly entries = new Map<string, { outcome: ExecuteOutcome; cells: number }>();
  /** Executions in flight, by key: a caller asking for one of them waits for it instead of running it again. */
  private readonly running = new Map<string, Promise<ExecuteOutcome>>();
  private cells = 0;
  hits = 0;
  misses = 0;
  private readonly maxCells: number;
  private readonly maxEntryCells: number;

  constructor(options: ExecutionCacheOptions = {}) {
    // A reference's result is small and recurs; what fills the cache is large one-off results.
    // 1M cells kept every hit 4M did on the Spider pairs, with a smaller heap per grading worker.
    this.maxCells = options.maxCells ?? 1_000_000;
    this.maxEntryCells = options.maxEntryCells ?? 200_000;
  }

  /**
   * `engine` with its fixture's content digest: execute answers from the
   * cache where it may. The other calls go to the engine unchanged.
   */
  wrap(engine: Engine, contentDigest: string): Engine {
    const execute = async (sql: string, options: ExecuteOptions = {}): Promise<ExecuteOutcome> => {
      if (options.signal?.aborted || options.measure || !isRepeatable(sql)) return engine.execute(sql, options);
      const key = `${engine.name}\u0000${contentDigest}\u0000${options.maxRows ?? DEFAULT_MAX_ROWS}\u0000${options.maxResultBytes ?? ''}\u0000${sql}`;
      const hit = this.entries.get(key);
      if (hit) {
        this.hits++;
        this.entries.delete(key);
        this.entries.set(key, hit);
        return hit.outcome;
      }
      // The same text already running (the app's warm-up and a grading's self-check, each in corpus order):
      // its answer is this one's. A failure is not shared (it may be the other caller's cancel): run it here.
      const running = this.running.get(key);
      if (running) {
        const shared = await running;
        if (shared.ok) {
          this.hits++;
          return shared;
        }
      }
      this.misses++;
      const pending = engine.execute(sql, options);
      if (!this.running.has(key)) this.running.set(key, pending);
      try {
        const outcome = await pending;
        if (outcome.ok) this.put(key, outcome);
        return outcome;
      } finally {
        if (this.running.get(key) === pending) this.running.delete(key);
      }
    };
    return {
      name: engine.name,
      version: () => engine.version(),
      load: (fixture) => engine.load(fixture),
      execute,
      contentDigest: () => engine.contentDigest(),
      explain: (sql, options) => engine.explain(sql, options),
      close: () => engine.close(),
    };
  }

  private put(key: string, outcome: ExecuteOutcome & { ok: true }): void {
    const cells = outcome.value.rows.length * Math.max(1, outcome.value.columns.length);
    if (cells > this.maxEntryCells) return;
    // Every reader gets the same object: freezing it makes a stray write fail loudly instead of changing a later verdict.
    for (const row of outcome.value.rows) Object.freeze(row);
    Object.freeze(outcome.value.rows);
    Object.freeze(outcome.value);
    this.entries.set(key, { outcome, cells });
    this.cells += cells;
    for (const [oldest, entry] of this.entries) {
      if (this.cells <= this.maxCells) break;
      this.entries.delete(oldest);
      this.cells -= entry.cells;
    }
  }
}
