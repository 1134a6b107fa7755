/**
 * What the SQL editors need from the app worker: the tables and columns of a
 * built-in fixture (from its schema description, parsed in the worker) for
 * completion, and one graded comparison for the case view's "try a fix" box.
 */
import type { Outcome } from '../../core/errors.ts';
import type { EvaluationReport } from '../../core/report/report.ts';
import type { AppClient } from './app-client.ts';
import { BUILT_IN_FIXTURES } from './builtins.ts';

export const EDITOR_SUPPORT_KEY = Symbol('editor-support');

export type SqlSchema = Record<string, string[]>;

export class EditorSupport {
  private readonly schemas = new Map<string, Promise<SqlSchema | null>>();

  constructor(private readonly backend: Pick<AppClient, 'parseSchema' | 'compare'>) {}

  /** Tables → columns of a built-in fixture; null when it is not one (an uploaded fixture: see schemaOfTables). */
  schemaOf(fixture: string): Promise<SqlSchema | null> {
    let got = this.schemas.get(fixture);
    if (!got) {
      const builtIn = BUILT_IN_FIXTURES.find((f) => f.name === fixture);
      got = builtIn
        ? this.backend
            .parseSchema(builtIn.schemaYaml, `${fixture}.schema.yaml`)
            .then((o) =>
              o.ok ? Object.fromEntries(o.value.tables.map((t) => [t.name, t.columns.map((c) => c.name)])) : null,
            )
            .catch(() => null)
        : Promise.resolve(null);
      this.schemas.set(fixture, got);
    }
    return got;
  }

  compare(input: Parameters<AppClient['compare']>[0]): Promise<Outcome<EvaluationReport>> {
    return this.backend.compare(input) as Promise<Outcome<EvaluationReport>>;
  }
}

/** A loaded fixture's own tables (the query page): completion of exactly what the engine has. */
export function schemaOfTables(tables: readonly { name: string; columns: readonly { name: string }[] }[]): SqlSchema {
  return Object.fromEntries(tables.map((t) => [t.name, t.columns.map((c) => c.name)]));
}
