/**
 * `run` on a DuckDB corpus: native DuckDB's engine thread is started, and the first case's fixture loaded into it,
 * before anything else — before the run command's code, the corpus and the run file are read (reading a corpus
 * is a YAML parse: a few hundred milliseconds) and while the grading code loads. The engine pool of the run
 * (engine-pool.ts) takes this engine for that fixture; otherwise it is closed unused (`closePrestarted`).
 *
 * Only a prediction, made from a glance at the command line and the corpus text: it is used only when the run
 * then asks for exactly that — the same fixture, resolved the same way (no --fixture, --db-dir, --ports or
 * --shard to change it), on native DuckDB with the options the pool gives its engines — so what a run grades
 * never depends on it. Where the glance cannot tell (an unusual corpus layout, DuckDB-WASM asked for, no native
 * binding here), nothing is started.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FixtureInfo } from '../core/engine.ts';
import { glanceAtCorpus } from '../core/corpus/glance.ts';
import { BUILT_IN_CORPORA } from '../core/vocabulary.ts';
import type { Outcome } from '../core/errors.ts';
import { openEngine } from '../engines/node.ts';
import type { SupervisedEngine } from '../engines/supervisor.ts';
import { FixtureOverrides, fixtureSourceFor } from './fixtures.ts';

const require = createRequire(import.meta.url);
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUILT_IN = new Set<string>(BUILT_IN_CORPORA);

/** The options the run's engine pool gives a native DuckDB engine (engine-pool.ts, run.ts). */
export const NATIVE_POOL_OPTIONS = { warmSpare: 'after-restart', duckdbDriver: 'native' } as const;

interface Prestarted {
  engine: SupervisedEngine;
  fixture: string;
  cwd: string;
  loaded: Promise<Outcome<FixtureInfo>>;
}

let prestarted: Prestarted | null = null;

/** The value of `--flag value` or `--flag=value`, the last one given. */
function flagValue(argv: string[], flag: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === flag) value = argv[i + 1];
    else if (arg.startsWith(`${flag}=`)) value = arg.slice(flag.length + 1);
  }
  return value;
}

/** Whether native DuckDB will grade a DuckDB corpus (duckdb-choice.ts decides; this only looks ahead, cheaply). */
function nativeLikely(env: Record<string, string | undefined>): boolean {
  if (env.SQL_VERDICT_DUCKDB === 'wasm') return false;
  if (env.SQL_VERDICT_DUCKDB === 'native') return true;
  if (env.SQL_VERDICT_NATIVE_BINDING === 'absent') return false;
  try {
    // The package and this platform's binding are there (loading it is the pool's engine thread's work).
    require.resolve('@duckdb/node-api');
    require.resolve(`@duckdb/node-bindings-${process.platform}-${process.arch}/duckdb.node`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Start native DuckDB with the first fixture of `run`'s corpus, when the command line and the corpus make it
 * likely to be what the run will ask for. Never throws; a wrong guess costs only the work done.
 */
export function prestartRun(argv: string[], cwd: string, env: Record<string, string | undefined>): void {
  try {
    if (prestarted) return;
    const flags = new Set(argv.map((a) => a.replace(/=.*$/, '')));
    for (const f of ['-h', '--help', '--format', '--db-dir', '--fixture', '--ports', '--shard'])
      if (flags.has(f)) return;
    const spec = flagValue(argv, '--corpus');
    if (!spec || !flagValue(argv, '--run') || !nativeLikely(env)) return;
    const file = BUILT_IN.has(spec)
      ? path.join(REPO_ROOT, 'fixtures', 'corpora', `${spec}.yaml`)
      : path.resolve(cwd, spec);
    if (!existsSync(file)) return;
    const glance = glanceAtCorpus(readFileSync(file, 'utf8'));
    if (!glance || glance.engine !== 'duckdb') return;
    const source = fixtureSourceFor('duckdb', new FixtureOverrides(), cwd, glance.fixture);
    if (!source.ok) return;
    const engine = openEngine('duckdb', NATIVE_POOL_OPTIONS);
    // The thread starts now, and loads the fixture as soon as it is up (sent with its init).
    const loaded = engine.load(source.value);
    loaded.catch(() => undefined);
    prestarted = { engine, fixture: glance.fixture, cwd, loaded };
  } catch {
    // A glance that failed starts nothing.
  }
}

/**
 * The started engine, for an engine pool opening `fixture` as `run` was going to: the same fixture and folder,
 * no --fixture for it, native DuckDB with NATIVE_POOL_OPTIONS. Taken once.
 */
export function takePrestarted(
  engineName: string,
  fixture: string,
  cwd: string,
  overridden: boolean,
  options: { warmSpare?: unknown },
): { engine: SupervisedEngine; loaded: Promise<Outcome<FixtureInfo>> } | null {
  const p = prestarted;
  if (
    !p ||
    engineName !== 'duckdb' ||
    p.fixture !== fixture ||
    p.cwd !== cwd ||
    overridden ||
    process.env.SQL_VERDICT_DUCKDB !== 'native' ||
    options.warmSpare !== NATIVE_POOL_OPTIONS.warmSpare
  )
    return null;
  prestarted = null;
  return { engine: p.engine, loaded: p.loaded };
}

/** Close the started engine if no pool took it (native DuckDB's thread must drain before the process ends). */
export async function closePrestarted(): Promise<void> {
  const p = prestarted;
  prestarted = null;
  await p?.engine.close();
}
