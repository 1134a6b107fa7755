/** The semantic verdict from the optional AI judge: a small validated JSON answer; the rules answer on any failure. */
import type { JudgeProvider } from '../judge/provider.ts';
import { VERDICT_SCORE } from './score.ts';
import type { SemanticVerdict, StefInput, VerdictLabel } from './types.ts';
import { VERDICT_LABELS } from './types.ts';

export const STEF_JUDGE_SYSTEM = `You grade SQL written by a text-to-SQL agent without the database schema and without a reference query.
Decide whether the SQL answers the user's question, taking the application's rules into account.
Answer with one JSON object only: {"verdict": "correct" | "likely_correct" | "potentially_incorrect" | "incorrect", "confidence": number between 0 and 1, "rationale": "one or two sentences"}.`;

export function stefJudgePrompt(input: StefInput, rulesRationale: string): string {
  return [
    `User question (Q_u): ${input.question}`,
    input.enriched_question ? `Enriched question (Q_e): ${input.enriched_question}` : null,
    `SQL (S):\n${input.sql}`,
    input.rules ? `Application rules (R_app): ${JSON.stringify(input.rules)}` : null,
    `Deterministic checks found: ${rulesRationale}`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** Parse the judge's answer; null when it is not the small JSON object asked for. */
export function parseJudgeVerdict(text: string): { label: VerdictLabel; confidence: number; rationale: string } | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text.slice(start, end + 1));
  } catch {
    return null;
  }
  if (!raw || typeof raw !== 'object') return null;
  const o = raw as Record<string, unknown>;
  const label = typeof o.verdict === 'string' ? o.verdict.toLowerCase().replace(/[\s-]+/g, '_') : '';
  if (!(VERDICT_LABELS as readonly string[]).includes(label)) return null;
  if (typeof o.confidence !== 'number' || !(o.confidence >= 0 && o.confidence <= 1)) return null;
  return {
    label: label as VerdictLabel,
    confidence: o.confidence,
    rationale: typeof o.rationale === 'string' ? o.rationale : '',
  };
}

/** Ask the judge; on a transport error or an invalid answer, return the rules' verdict with `judge_error`. */
export async function judgeVerdict(
  provider: JudgeProvider,
  input: StefInput,
  fallback: SemanticVerdict,
): Promise<SemanticVerdict> {
  const answer = await provider.complete({
    system: STEF_JUDGE_SYSTEM,
    messages: [{ role: 'user', content: stefJudgePrompt(input, fallback.rationale) }],
  });
  if (!answer.ok) return { ...fallback, judge_error: `${answer.error.code}: ${answer.error.message}` };
  const parsed = parseJudgeVerdict(answer.value.text);
  if (!parsed)
    return { ...fallback, judge_error: 'judge.invalid_answer: the answer was not {verdict, confidence, rationale}' };
  return {
    label: parsed.label,
    score: VERDICT_SCORE[parsed.label],
    confidence: parsed.confidence,
    source: 'judge',
    rationale: parsed.rationale,
  };
}
