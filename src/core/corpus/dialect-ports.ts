/**
 * Dialect ports of a corpus's reference SQL: a small YAML file beside the
 * corpus (`<corpus>.postgres.yaml`) names the engine the ports are for and,
 * per case id, the reference text in that engine's dialect. A case without a
 * port keeps its reference as written. The frozen results stay the corpus's
 * own: a port must return them on the other engine (the self-check says so).
 */
import { parse, YAMLParseError } from 'yaml';
import { ENGINE_NAMES, type EngineName } from '../engine.ts';
import { fail, messageOf, ok, type Outcome } from '../errors.ts';
import type { LoadedCorpus } from './types.ts';

export interface ReferencePorts {
  corpus: string;
  engine: EngineName;
  ports: Record<string, string>;
}

export function parseReferencePorts(text: string, file: string): Outcome<ReferencePorts> {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (thrown) {
    // The parser's message is several lines (position and an excerpt of the file): one line, the place first.
    const at =
      thrown instanceof YAMLParseError && thrown.linePos ? `:${thrown.linePos[0].line}:${thrown.linePos[0].col}` : '';
    const what = (thrown instanceof YAMLParseError ? thrown.message.split('\n')[0]! : messageOf(thrown)).replace(
      / at line \d+, column \d+:?$/,
      '',
    );
    return fail('input.invalid', `${file}${at}: not valid YAML (${what}).`, { location: `${file}${at}` });
  }
  const root = doc as { corpus?: unknown; engine?: unknown; ports?: unknown } | null;
  if (!root || typeof root.corpus !== 'string')
    return fail('input.invalid', `${file}: "corpus" (the corpus name) is required.`, { location: `${file}: corpus` });
  if (!(ENGINE_NAMES as readonly unknown[]).includes(root.engine))
    return fail('input.invalid', `${file}: "engine" must be one of ${ENGINE_NAMES.join(', ')}.`, {
      location: `${file}: engine`,
    });
  const ports = root.ports;
  if (!ports || typeof ports !== 'object' || Array.isArray(ports))
    return fail('input.invalid', `${file}: "ports" must map case ids to SQL text.`, { location: `${file}: ports` });
  for (const [id, sql] of Object.entries(ports))
    if (typeof sql !== 'string' || !sql.trim())
      return fail('input.invalid', `${file}: the port of ${id} must be SQL text.`, {
        location: `${file}: ports.${id}`,
      });
  return ok({ corpus: root.corpus, engine: root.engine as EngineName, ports: ports as Record<string, string> });
}

/** The corpus for the ports' engine: the same cases and frozen results, each reference in that dialect. */
export function portCorpus(loaded: LoadedCorpus, ports: ReferencePorts): Outcome<LoadedCorpus> {
  const corpus = loaded.corpus;
  if (ports.corpus !== corpus.name)
    return fail('input.invalid', `The ports are for corpus ${ports.corpus}, not ${corpus.name}.`);
  // Ports carry references into another engine's dialect; on the corpus's own engine they would replace its oracle
  // while the report still names the corpus's sha256.
  if (ports.engine === corpus.engine)
    return fail(
      'input.invalid',
      `The ports are for engine ${ports.engine}, the corpus's own engine: ports give the references in another engine's dialect (to change a reference, edit the corpus).`,
    );
  const ids = new Set(corpus.cases.map((c) => c.id));
  const unknown = Object.keys(ports.ports).filter((id) => !ids.has(id));
  if (unknown.length)
    return fail('input.invalid', `The ports name cases the corpus does not have: ${unknown.join(', ')}.`);
  return ok({
    ...loaded,
    corpus: {
      ...corpus,
      engine: ports.engine,
      cases: corpus.cases.map((c) =>
        ports.ports[c.id] !== undefined ? { ...c, referenceSql: ports.ports[c.id]!.replace(/\s+$/, '') } : c,
      ),
    },
  });
}

/** A ports file's text applied to a loaded corpus (the CLI's `run --ports FILE`, the app's engine choice). */
export function portCorpusWith(loaded: LoadedCorpus, text: string, file: string): Outcome<LoadedCorpus> {
  const ports = parseReferencePorts(text, file);
  if (!ports.ok) return ports;
  const ported = portCorpus(loaded, ports.value);
  return ported.ok ? ported : fail('input.invalid', `${file}: ${ported.error.message}`, { location: file });
}
