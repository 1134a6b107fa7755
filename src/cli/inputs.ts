/** Reading corpora, runs and reports from disk, with every problem reported by file, line, case and field. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasErrors, problemLines, type LoadProblem } from '../core/corpus/problems.ts';
import { loadCorpus } from '../core/corpus/load-corpus.ts';
import { corpusMismatch } from '../core/corpus/binding.ts';
import { loadRun, type LoadedRun } from '../core/corpus/load-run.ts';
import type { LoadedCorpus } from '../core/corpus/types.ts';
import { parseReferencePorts, portCorpus, type ReferencePorts } from '../core/corpus/dialect-ports.ts';
import { BUILT_IN_CORPORA } from '../core/vocabulary.ts';
import { CliError } from './cli-error.ts';
import type { Io } from './io.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export { BUILT_IN_CORPORA };

function readBytes(file: string, cwd: string, what: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path.resolve(cwd, file)));
  } catch (thrown) {
    throw new CliError(`Cannot read ${what} ${file}: ${(thrown as NodeJS.ErrnoException).code ?? String(thrown)}.`);
  }
}

/** A corpus path, or the name of a built-in corpus. */
export function corpusPath(spec: string, cwd: string): string {
  if ((BUILT_IN_CORPORA as readonly string[]).includes(spec))
    return path.join(REPO_ROOT, 'fixtures', 'corpora', `${spec}.yaml`);
  return path.resolve(cwd, spec);
}

function report(problems: LoadProblem[], io: Io): void {
  for (const line of problemLines(problems)) io.err(line);
}

export async function readCorpus(spec: string, io: Io): Promise<LoadedCorpus> {
  const file = corpusPath(spec, io.cwd);
  if (!existsSync(file))
    throw new CliError(
      `Corpus not found: ${spec} (no such file, and not a built-in corpus: ${BUILT_IN_CORPORA.join(', ')}).`,
    );
  const result = await loadCorpus(readBytes(file, io.cwd, 'corpus'), { file: spec });
  report(result.problems, io);
  if (!result.ok || hasErrors(result.problems))
    throw new CliError(`Corpus ${spec} has errors (listed above); nothing was graded.`);
  return result.loaded;
}

export async function readRun(
  spec: string,
  caseIds: readonly string[],
  io: Io,
  binding?: { corpus: LoadedCorpus; allowMismatch: boolean },
): Promise<LoadedRun> {
  const result = await loadRun(readBytes(spec, io.cwd, 'run file'), { file: spec, caseIds });
  report(result.problems, io);
  if (!result.ok || hasErrors(result.problems))
    throw new CliError(`Run file ${spec} has errors (listed above); nothing was graded.`);
  if (binding) {
    // A run answers one corpus: grading it against another (or another version) measures nothing.
    const { corpus, allowMismatch } = binding;
    const mismatch = corpusMismatch(result.run.metadata, { name: corpus.corpus.name, sha256: corpus.sha256 });
    if (mismatch) {
      const line = `${spec} (field ${mismatch.field}): ${mismatch.text}`;
      if (!allowMismatch)
        throw new CliError(`${line}. Nothing was graded; pass --allow-corpus-mismatch to grade it anyway.`);
      io.err(`Warning: ${line} (graded anyway: --allow-corpus-mismatch).`);
    }
  }
  return result.run;
}

/** A file's text (errors name the file and what it was meant to be). */
export function readTextFile(file: string, io: Io, what: string): string {
  return new TextDecoder().decode(readBytes(file, io.cwd, what));
}

export function readJsonFile(file: string, io: Io, what: string): unknown {
  const text = new TextDecoder().decode(readBytes(file, io.cwd, what));
  try {
    return JSON.parse(text);
  } catch (thrown) {
    throw new CliError(`${what} ${file} is not valid JSON: ${(thrown as Error).message}.`);
  }
}

/** A reference ports file (`--ports FILE`): the corpus it is for, and per case the reference in the engine's dialect. */
export interface PortsFile {
  file: string;
  ports: ReferencePorts;
}

export function readPorts(files: readonly string[] | undefined, io: Io): PortsFile[] {
  return (files ?? []).map((file) => {
    const parsed = parseReferencePorts(readTextFile(file, io, 'ports file'), file);
    if (!parsed.ok) throw new CliError(parsed.error.message);
    return { file, ports: parsed.value };
  });
}

/** The corpus with the ports that name it applied (its engine becomes theirs); the corpus as read when none does. */
export function withPorts(corpus: LoadedCorpus, ports: readonly PortsFile[]): LoadedCorpus {
  const name = corpus.corpus.name;
  const mine = ports.filter((p) => p.ports.corpus === name);
  if (mine.length > 1)
    throw new CliError(`--ports: ${mine.map((p) => p.file).join(' and ')} all port corpus ${name}; give one.`);
  if (!mine.length) return corpus;
  const ported = portCorpus(corpus, mine[0]!.ports);
  if (!ported.ok) throw new CliError(`${mine[0]!.file}: ${ported.error.message}`);
  return ported.value;
}

/** A ports file that names none of the corpora read is a mistake, not a no-op. */
export function checkPortsUsed(ports: readonly PortsFile[], corpora: readonly LoadedCorpus[]): void {
  for (const p of ports)
    if (!corpora.some((c) => c.corpus.name === p.ports.corpus))
      throw new CliError(
        `${p.file}: ports corpus ${p.ports.corpus}, not ${corpora.map((c) => c.corpus.name).join(' or ')} (field corpus).`,
      );
}
