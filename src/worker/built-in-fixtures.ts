/**
 * The built-in fixtures (fixtures/fixtures.json) as same-origin assets: the
 * dumps are fetched on first use (and cached by the service worker), never
 * bundled into the JavaScript.
 */
import manifest from '../../fixtures/fixtures.json';
import retailSql from '../../fixtures/retail.sql?url';
import retailMonthlySql from '../../fixtures/retail_monthly.sql?url';
import type { FixtureSource } from '../core/engine.ts';
import { fail, messageOf, ok, type Outcome } from '../core/errors.ts';

const DUMP_URL: Record<string, string> = { retail: retailSql, retail_monthly: retailMonthlySql };

export const BUILT_IN_FIXTURES = Object.keys(DUMP_URL);

/** A built-in fixture's as-of instant (its frozen clock), from the manifest; undefined for any other name. */
export function builtInAsOf(name: string): string | undefined {
  return DUMP_URL[name] ? (manifest.fixtures as Record<string, { as_of?: string }>)[name]?.as_of : undefined;
}

export async function fetchBuiltInFixture(name: string): Promise<Outcome<FixtureSource>> {
  const entry = (manifest.fixtures as Record<string, { dump: string; as_of: string }>)[name];
  const url = DUMP_URL[name];
  if (!entry || !url) return fail('input.not_found', `No built-in fixture "${name}".`, { location: name });
  try {
    const response = await fetch(url);
    if (!response.ok)
      return fail(
        'fixture.load_failed',
        `The built-in fixture ${name} could not be fetched (HTTP ${response.status}).`,
        { location: name },
      );
    const bytes = new Uint8Array(await response.arrayBuffer());
    return ok({ name, files: [{ fileName: entry.dump, format: 'sql', bytes }], asOf: entry.as_of });
  } catch (thrown) {
    return fail('fixture.load_failed', `The built-in fixture ${name} could not be fetched: ${messageOf(thrown)}`, {
      location: name,
    });
  }
}
