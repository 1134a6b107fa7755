/**
 * A run answers one corpus: its metadata may declare which (`run.corpus`,
 * `run.corpus_sha256`). Grading it against another corpus, or another
 * version of it, measures nothing — the CLI refuses it unless
 * --allow-corpus-mismatch, the app unless the user chooses to grade anyway.
 */
import type { LoadedRun } from './load-run.ts';

export interface CorpusMismatch {
  field: 'run.corpus' | 'run.corpus_sha256';
  /** "it declares corpus "x", the corpus graded is "y"" (and the digest part), without the file. */
  text: string;
}

export function corpusMismatch(
  meta: LoadedRun['metadata'],
  corpus: { name: string; sha256: string },
): CorpusMismatch | null {
  const problems: string[] = [];
  const otherName = meta.corpus !== undefined && meta.corpus !== corpus.name;
  if (otherName) problems.push(`it declares corpus "${meta.corpus}", the corpus graded is "${corpus.name}"`);
  if (meta.corpusSha256 !== undefined && meta.corpusSha256 !== corpus.sha256)
    problems.push(
      `it declares corpus_sha256 ${meta.corpusSha256.slice(0, 12)}…, the corpus graded has ${corpus.sha256.slice(0, 12)}…`,
    );
  return problems.length ? { field: otherName ? 'run.corpus' : 'run.corpus_sha256', text: problems.join('; ') } : null;
}
