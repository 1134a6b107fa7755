import type { Dialect } from '../grammar.ts';
import type { Query } from '../ir.ts';

export interface RuleContext {
  dialect: Dialect;
}

/**
 * One canonicalization rule: a small pure rewrite of the tree that never
 * changes a query's result rows. Each has a fixture of input/expected pairs
 * in `tests/structure/rules/<name>.pairs.yaml`.
 */
export interface CanonicalRule {
  /** Kebab-case, equal to the file name. */
  name: string;
  /** One sentence for docs and reports. */
  description: string;
  apply(query: Query, ctx: RuleContext): Query;
}
