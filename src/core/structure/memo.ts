/**
 * Parse once, reuse by text. A corpus run meets the same reference SQL many
 * times (Spider dev: 1,234 distinct references in 8,003 pairs), and one case
 * used to parse each text two or three times (structure, features, hardness)
 * and canonicalize each tree twice. Results are pure functions of (text,
 * dialect) or of the tree object, so they are memoized here:
 *
 * - `memoParse`: ParseOutcome by dialect + text, in a bounded LRU (the most
 *   recent 2,048 texts: a reference recurs about one system's block of cases
 *   later, ~800 cases and fewer texts than that per worker on Spider; 4,096
 *   missed no fewer parses and held ~70 MB more per worker at 24,000 cases).
 * - `memoByTree`: anything derived from one tree (canonical form, features,
 *   hardness), keyed by the tree object in a WeakMap, so it lives as long as
 *   the cached parse that holds the tree.
 *
 * Shared values are deep-frozen: a consumer that tried to write into a cached
 * tree would throw (strict mode) instead of corrupting the next case.
 */
import type { Dialect } from './grammar.ts';

const PARSE_CAPACITY = 2048;

export class LruCache<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      // Most recently used goes last; eviction takes the first.
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
  }

  get size(): number {
    return this.map.size;
  }

  clear(): void {
    this.map.clear();
  }
}

/** Freeze a plain JSON-like value and everything it holds (already frozen parts are skipped). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    // Indexed and for-in loops: no key array per node (this runs on every parsed tree).
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
    else for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

const parses = new LruCache<unknown>(PARSE_CAPACITY);

/** The cached value of `compute(sql)` for this dialect and text, computed on first use and frozen. */
export function memoParse<T>(sql: string, dialect: Dialect, compute: () => T): T {
  const key = `${dialect}\u0000${sql}`;
  const hit = parses.get(key);
  if (hit !== undefined) return hit as T;
  const value = deepFreeze(compute());
  parses.set(key, value);
  return value;
}

const byTree = new Map<string, WeakMap<object, unknown>>();

/** The cached value of `compute()` for this tree object under `name` (e.g. "canonical:sqlite"), frozen. */
export function memoByTree<T>(name: string, tree: object, compute: () => T): T {
  let table = byTree.get(name);
  if (!table) {
    table = new WeakMap();
    byTree.set(name, table);
  }
  if (table.has(tree)) return table.get(tree) as T;
  const value = deepFreeze(compute());
  table.set(tree, value);
  return value;
}

/** Drop every cached parse (tests; a long-lived app worker never needs to). */
export function clearParseCache(): void {
  parses.clear();
  byTree.clear();
}
