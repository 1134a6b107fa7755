/**
 * What the app offers without any upload: the built-in corpora and sample
 * runs as same-origin assets (fetched when chosen), the demo run, and the
 * fixtures' schema descriptions.
 */
import manifest from '../../../fixtures/fixtures.json';
import retailSchema from '../../../fixtures/retail.schema.yaml?raw';
import retailMonthlySchema from '../../../fixtures/retail_monthly.schema.yaml?raw';
import demoRunUrl from '../assets/demo-flawed.run.json?url';
import { BUILT_IN_CORPORA as BUILT_IN_CORPUS_NAMES } from '../../core/vocabulary.ts';

export interface BuiltInAsset {
  /** File name as shown and as recorded in reports. */
  file: string;
  url: string;
  note: string;
}

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

const corpusUrls = import.meta.glob('../../../fixtures/corpora/*.{yaml,yml,json}', {
  query: '?url',
  import: 'default',
  eager: true,
}) as Record<string, string>;
const runUrls = import.meta.glob('../../../fixtures/runs/*.{json,jsonl}', {
  query: '?url',
  import: 'default',
  eager: true,
}) as Record<string, string>;

const portsUrls = import.meta.glob('../../../fixtures/corpora/ports/*.yaml', {
  query: '?url',
  import: 'default',
  eager: true,
}) as Record<string, string>;

/**
 * Reference ports shipped beside a built-in corpus (`ports/<corpus>.<dialect>.yaml`: its reference SQL in
 * PostgreSQL's dialect), by the corpus file they port: with one, the corpus can be graded on PGlite.
 */
export const BUILT_IN_PORTS: Record<string, BuiltInAsset> = Object.fromEntries(
  Object.entries(portsUrls).map(([path, url]) => {
    const file = baseName(path);
    return [file.replace(/\.[^.]+\.yaml$/, '.yaml'), { file, url, note: 'reference SQL ported to PostgreSQL' }];
  }),
);

const CORPUS_NOTES: Record<(typeof BUILT_IN_CORPUS_NAMES)[number], string> = {
  execution_goldens: '64 business questions with reference SQL and frozen results',
  refusal_battery: 'questions the system must refuse, and controls it must answer',
};

export const DEMO_CORPUS = `${BUILT_IN_CORPUS_NAMES[0]}.yaml`;
export const DEMO_RUN = 'demo-flawed.run.json';

export const BUILT_IN_CORPORA: BuiltInAsset[] = Object.entries(corpusUrls)
  .map(([path, url]) => ({
    file: baseName(path),
    url,
    note: (CORPUS_NOTES as Record<string, string>)[baseName(path).replace(/\.yaml$/, '')] ?? '',
  }))
  .sort((a, b) => (a.file === DEMO_CORPUS ? -1 : b.file === DEMO_CORPUS ? 1 : a.file.localeCompare(b.file)));

export const BUILT_IN_RUNS: BuiltInAsset[] = [
  {
    file: DEMO_RUN,
    url: demoRunUrl,
    note: 'demo agent: correct rewrites plus 9 seeded mistakes (a test fixture, not a real agent)',
  },
  ...Object.entries(runUrls)
    .map(([path, url]) => ({ file: baseName(path), url, note: 'sample run' }))
    .sort((a, b) => a.file.localeCompare(b.file)),
];

export interface BuiltInFixture {
  name: string;
  title: string;
  asOf: string;
  tables: Record<string, number>;
  contentDigest: string;
  schemaYaml: string;
}

const SCHEMAS: Record<string, string> = { retail: retailSchema, retail_monthly: retailMonthlySchema };

export const BUILT_IN_FIXTURES: BuiltInFixture[] = Object.entries(manifest.fixtures).map(([name, f]) => ({
  name,
  title: f.title,
  asOf: f.as_of,
  tables: f.tables as Record<string, number>,
  contentDigest: f.content_digest,
  schemaYaml: SCHEMAS[name] ?? '',
}));

export async function fetchAsset(asset: BuiltInAsset): Promise<Uint8Array> {
  const response = await fetch(asset.url);
  if (!response.ok) throw new Error(`${asset.file}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}
