/**
 * A glance at a corpus's text before it is read (a YAML parse of a few hundred milliseconds): its engine and the
 * fixtures its cases name, by pattern, in YAML or JSON. Only for starting engines early — the CLI's prestart
 * (src/cli/prestart.ts), the app's warm-up (src/worker/app.worker.ts) — so what a run grades never depends on it:
 * a wrong guess costs only the work started.
 */
export interface CorpusGlance {
  engine: string;
  /** The first case's fixture. */
  fixture: string;
  /** Every fixture named, in order of first mention. */
  fixtures: string[];
}

const YAML_FIXTURE = /^[ \t]*(?:-[ \t]+)?fixture:[ \t]*['"]?([A-Za-z0-9_.-]+)['"]?[ \t]*(?:#.*)?$/gm;
const JSON_FIXTURE = /"fixture"\s*:\s*"([A-Za-z0-9_.-]+)"/g;

/** The corpus's engine and fixtures, read off its text; null when unsure. */
export function glanceAtCorpus(text: string): CorpusGlance | null {
  const engine = /^engine:[ \t]*['"]?(\w+)['"]?[ \t]*(?:#.*)?$/m.exec(text) ?? /"engine"\s*:\s*"(\w+)"/.exec(text);
  let named = [...text.matchAll(YAML_FIXTURE)];
  if (named.length === 0) named = [...text.matchAll(JSON_FIXTURE)];
  const fixtures = [...new Set(named.map((m) => m[1]!))];
  return engine && fixtures.length ? { engine: engine[1]!, fixture: fixtures[0]!, fixtures } : null;
}
