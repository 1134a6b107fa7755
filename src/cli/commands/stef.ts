import { createReadStream, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppRules, MonitorReport, StefReport } from '../../core/stef/index.ts';
import { evaluateStefWithJudge, LogMonitor, parseRules } from '../../core/stef/index.ts';
import { oneOf, parseFlags, positiveInteger } from '../args.ts';
import { decodeUtf8Strict } from '../../core/corpus/utf8.ts';
import { CliError, EXIT } from '../cli-error.ts';
import type { Io } from '../io.ts';
import { judgeFromEnv } from '../judge-env.ts';
import { prettyJson } from '../json.ts';
import { percent } from '../../core/gate/interval.ts';

export const STEF_HELP = `Usage: sql-verdict stef --question Q --sql S [--enriched Q_e] [--rules R_app.json] [options]
       sql-verdict stef --log FILE.jsonl [--rules R_app.json] [--bucket day|week] [options]

Schema-agnostic evaluation (STEF): grade SQL with no reference query and no schema,
from the user's question, the agent's enriched question and application rules.
Prints Φ (0–100), the filter alignment, the semantic verdict and the evidence; with
--log, per agent version: mean Φ, P90, coverage, over time, and the worst queries.

Options:
  --question TEXT     the user's question (Q_u)
  --enriched TEXT     the agent's enriched question (Q_e)
  --sql SQL           the generated SQL (S)
  --rules FILE        application rules R_app (JSON; schema docs/r_app.schema.json)
  --dialect D         duckdb | sqlite (default duckdb)
  --log FILE          JSONL log: {timestamp, agent_version, question, enriched_question?, sql} per line
  --bucket B          day | week (default day), for --log
  --worst N           worst queries listed per agent version (default 5)
  --judge             semantic verdict from the configured AI judge (SQL_VERDICT_JUDGE_*); rules on failure
  --min-phi X         exit 1 when Φ is below X (0–100; default 0: never); with --log, when any
                      agent version's mean Φ is below X
  --json              print the JSON report
  -h, --help          show this help

Exit status: 0 done (Φ ≥ --min-phi), 1 Φ below --min-phi, 2 bad input.`;

function readText(file: string, cwd: string, what: string): string {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(path.resolve(cwd, file)));
  } catch (thrown) {
    throw new CliError(`Cannot read ${what} ${file}: ${(thrown as NodeJS.ErrnoException).code ?? String(thrown)}.`);
  }
  // Strict UTF-8: Latin-1 would turn into U+FFFD silently, UTF-16 into text full of NULs.
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    throw new CliError(`${file}: the ${what} is UTF-16 (byte-order mark); save it as UTF-8.`);
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    const line = bytes.subarray(0, nul).reduce((n, b) => n + (b === 10 ? 1 : 0), 1);
    throw new CliError(
      `${file}:${line}: the ${what} contains a NUL byte (UTF-16 without a byte-order mark?); save it as UTF-8.`,
    );
  }
  const decoded = decodeUtf8Strict(bytes);
  if (!decoded.ok)
    throw new CliError(
      `${file}:${decoded.line}:${decoded.column}: the ${what} is not UTF-8 (${decoded.reason} at byte ${decoded.offset}); save it as UTF-8.`,
    );
  return decoded.text.replace(/^\uFEFF/, '');
}

/**
 * The lines of a file, streamed (1 MiB reads), with readText's checks per line: no UTF-16 byte-order mark, no NUL
 * byte, strict UTF-8 (errors name the line, column and byte offset). A line ends at LF; a CR before it is dropped.
 */
export async function* readLines(
  file: string,
  cwd: string,
  what: string,
): AsyncGenerator<{ text: string; line: number }> {
  const stream = createReadStream(path.resolve(cwd, file), { highWaterMark: 1 << 20 });
  let rest: Buffer = Buffer.alloc(0);
  let line = 0;
  let offset = 0;
  const decode = (bytes: Buffer): string => {
    line++;
    const nul = bytes.indexOf(0);
    if (nul >= 0)
      throw new CliError(
        `${file}:${line}: the ${what} contains a NUL byte (UTF-16 without a byte-order mark?); save it as UTF-8.`,
      );
    const end = bytes.length && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    const decoded = decodeUtf8Strict(bytes.subarray(0, end));
    if (!decoded.ok)
      throw new CliError(
        `${file}:${line}:${decoded.column}: the ${what} is not UTF-8 (${decoded.reason} at byte ${offset + decoded.offset}); save it as UTF-8.`,
      );
    offset += bytes.length + 1;
    return line === 1 ? decoded.text.replace(/^\uFEFF/, '') : decoded.text;
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (line === 0 && offset === 0 && !rest.length) {
        if ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff))
          throw new CliError(`${file}: the ${what} is UTF-16 (byte-order mark); save it as UTF-8.`);
      }
      let buf = rest.length ? Buffer.concat([rest, chunk]) : chunk;
      let nl: number;
      while ((nl = buf.indexOf(0x0a)) >= 0) {
        yield { text: decode(buf.subarray(0, nl)), line };
        buf = buf.subarray(nl + 1);
      }
      // Copy the tail so the 1 MiB chunk it points into can be collected.
      rest = Buffer.from(buf);
    }
  } catch (thrown) {
    if (thrown instanceof CliError) throw thrown;
    throw new CliError(`Cannot read ${what} ${file}: ${(thrown as NodeJS.ErrnoException).code ?? String(thrown)}.`);
  }
  if (rest.length) yield { text: decode(rest), line };
}

/** Read and check R_app; errors name the file and the field. */
export function readRules(file: string, cwd: string): AppRules {
  const text = readText(file, cwd, 'R_app');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (thrown) {
    throw new CliError(`R_app ${file} is not valid JSON: ${(thrown as Error).message}.`);
  }
  const checked = parseRules(raw);
  if (!checked.ok) throw new CliError(`${file}: ${checked.error.message}`);
  return checked.value;
}

export function summarizeStef(r: StefReport): string {
  const v = r.semantic_verdict;
  const lines = [
    `Φ ${r.phi} · filters ${r.filter_alignment.status} (${r.filter_alignment.score}/5${r.filter_alignment.leniency ? ' +1 leniency' : ''}) · verdict ${v.label} (${v.score}/5, ${v.source}) · confidence ${r.confidence} → Γ ${r.gamma}`,
  ];
  for (const m of r.filter_alignment.matches)
    lines.push(
      `  filter ${m.result}: ${m.question_filter}${m.predicates.length ? ` ↔ ${m.predicates.join(' AND ')}` : ''} (${m.note})`,
    );
  for (const x of r.filter_alignment.extras) lines.push(`  extra ${x.kind}: ${x.predicate} (${x.reason})`);
  for (const i of r.evidence.issues) lines.push(`  ${i.severity}: ${i.message}`);
  for (const p of r.production_rules_applied) lines.push(`  rule ${p.rule}: ${p.detail}`);
  if (r.drift?.drifted)
    lines.push(`  drift: Q_e added [${r.drift.added.join('; ')}], lost [${r.drift.lost.join('; ')}]`);
  if (v.judge_error) lines.push(`  judge failed, rules used: ${v.judge_error}`);
  return lines.join('\n');
}

const fmt = (x: number | null) => (x === null ? '—' : x.toFixed(1));

export function summarizeMonitor(m: MonitorReport): string {
  const lines = [
    `${m.queries} queries · ${m.agents.length} agent versions · ${m.bucket} buckets`,
    '',
    'agent_version  queries  coverage  mean_Φ  P90_Φ',
  ];
  for (const a of m.agents)
    lines.push(
      `${a.agent_version.padEnd(13)}  ${String(a.queries).padStart(7)}  ${percent(a.coverage).padStart(8)}  ${fmt(a.mean_phi).padStart(6)}  ${fmt(a.p90_phi).padStart(5)}`,
    );
  for (const a of m.agents) {
    lines.push('', `${a.agent_version} over time:`);
    for (const p of a.periods)
      lines.push(
        `  ${p.period}  n=${p.queries}  coverage ${percent(p.coverage)}  mean ${fmt(p.mean_phi)}  P90 ${fmt(p.p90_phi)}`,
      );
    lines.push(`  worst:`);
    for (const w of a.worst)
      lines.push(`    Φ ${fmt(w.phi)} ${w.verdict ?? `not evaluated (${w.reason})`} · ${w.question}`);
  }
  return lines.join('\n');
}

export async function stefCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags('stef', argv, {
    question: { type: 'string' },
    enriched: { type: 'string' },
    sql: { type: 'string' },
    rules: { type: 'string' },
    dialect: { type: 'string' },
    log: { type: 'string' },
    bucket: { type: 'string' },
    worst: { type: 'string' },
    judge: { type: 'boolean' },
    'min-phi': { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(STEF_HELP);
    return EXIT.ok;
  }
  const minPhi = values['min-phi'] === undefined ? 0 : Number(values['min-phi']);
  if (
    values['min-phi'] !== undefined &&
    (values['min-phi'].trim() === '' || !Number.isFinite(minPhi) || minPhi < 0 || minPhi > 100)
  )
    throw new CliError(`--min-phi must be a number from 0 to 100, got "${values['min-phi']}".`);
  if (positionals.length) throw new CliError(`stef: unexpected argument "${positionals[0]}" (the SQL goes in --sql).`);
  const rules = values.rules ? readRules(values.rules, io.cwd) : {};
  if (values.log) {
    if (values.question !== undefined || values.sql !== undefined)
      throw new CliError('stef: --log cannot be combined with --question/--sql.');
    const bucket = oneOf('--bucket', values.bucket, ['day', 'week'] as const, 'day')!;
    const m = new LogMonitor({ bucket, rules, worst: positiveInteger('--worst', values.worst, 5) });
    // One line at a time from the file: memory does not grow with the log (docs/stef.md, bench/stef-log.ts).
    for await (const { text, line } of readLines(values.log, io.cwd, 'log')) m.addLine(text, line);
    if (m.errorCount)
      throw new CliError(
        m.errors.map((e) => `${values.log}:${e.line}${e.field ? ` (${e.field})` : ''}: ${e.message}`).join('\n') +
          (m.errorCount > m.errors.length ? `\n… ${m.errorCount - m.errors.length} more` : ''),
      );
    const report = m.report();
    if (!report.queries) throw new CliError(`${values.log}: the log holds no records.`);
    io.out(values.json ? prettyJson(report) : summarizeMonitor(report));
    const below = report.agents.filter((a) => a.mean_phi !== null && a.mean_phi < minPhi);
    if (below.length) {
      io.err(`Mean Φ below --min-phi ${minPhi}: ${below.map((a) => `${a.agent_version} ${a.mean_phi}`).join(', ')}.`);
      return EXIT.failed;
    }
    return EXIT.ok;
  }
  if (values.question === undefined)
    throw new CliError('stef: --question is required (or --log FILE).\nRun "sql-verdict stef --help" for usage.');
  if (values.sql === undefined)
    throw new CliError('stef: --sql is required (or --log FILE).\nRun "sql-verdict stef --help" for usage.');
  const dialect = oneOf('--dialect', values.dialect, ['duckdb', 'sqlite'] as const, 'duckdb')!;
  const judge = values.judge ? judgeFromEnv(io.env) : null;
  // The disabled policy keeps the rules' verdict.
  const provider = judge && judge.policy !== 'disabled' ? judge.provider : null;
  const result = await evaluateStefWithJudge(
    { question: values.question, enriched_question: values.enriched ?? null, sql: values.sql, rules, dialect },
    provider,
  );
  if (!result.ok)
    throw new CliError(`stef: ${result.error.location ? `--${result.error.location}: ` : ''}${result.error.message}`);
  io.out(values.json ? prettyJson(result.value) : summarizeStef(result.value));
  if (result.value.phi < minPhi) {
    io.err(`Φ ${result.value.phi} is below --min-phi ${minPhi}.`);
    return EXIT.failed;
  }
  return EXIT.ok;
}
