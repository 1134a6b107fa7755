/**
 * JUnit XML: one <testcase> per corpus case so CI systems show failures
 * natively, and, when a gate result is given, one <testcase> per gate check
 * (blocked → <failure>, refused → <error>, not applicable → <skipped>).
 * With the run's details, each test is named by its question (CI lists read
 * as the corpus does), carries its time in seconds, and the suite its timestamp.
 */
import { isSuccess } from '../outcome.ts';
import type { GateResult } from '../gate.ts';
import { DEFAULT_REASONS, type RunSummary } from '../summary.ts';
import { xmlAttr, xmlText } from './escape.ts';

function attrs(a: Record<string, string | number>): string {
  return Object.entries(a)
    .map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`)
    .join('');
}

/** What the summary lacks and CI shows: from the run report (cases[].question, report timings, run_metadata). */
export interface JUnitDetails {
  /** ISO instant the run started (run_metadata.started_at). */
  timestamp?: string;
  /** Seconds the whole run took. */
  timeSeconds?: number;
  cases?: Record<string, { question?: string; timeSeconds?: number }>;
}

const seconds = (s: number | undefined) => (s === undefined ? 0 : Math.round(s * 1000) / 1000).toFixed(3);

export function toJUnit(summary: RunSummary, gate?: GateResult, details: JUnitDetails = {}): string {
  const suiteName = `${summary.corpus.name}${summary.corpus.version === null ? '' : ` v${summary.corpus.version}`}`;
  const caseLines: string[] = [];
  let failures = 0;
  let errors = 0;
  for (const k of summary.cases) {
    const classname = ['sql-verdict', summary.corpus.name, k.arm ?? 'graded', k.stratum ?? k.shape]
      .filter(Boolean)
      .join('.');
    const detail = details.cases?.[k.id];
    const open = `    <testcase${attrs({ name: detail?.question || k.id, classname, time: seconds(detail?.timeSeconds) })}`;
    // The case id stays findable when the question names the test.
    const idProps = detail?.question
      ? [`      <properties><property${attrs({ name: 'case_id', value: k.id })}/></properties>`]
      : [];
    if (isSuccess(k.outcome)) {
      caseLines.push(idProps.length ? `${open}>\n${idProps[0]}\n    </testcase>` : `${open}/>`);
      continue;
    }
    // A broken reference is not graded (SPEC 4): the oracle failed, not the system under test,
    // so it is a JUnit <error> (as a refused gate check is), never counted among the failures.
    const broken = k.outcome === 'broken_reference';
    if (broken) errors++;
    else failures++;
    const reason = k.reason ?? DEFAULT_REASONS[k.outcome];
    const body = [
      `case: ${k.id}`,
      `outcome: ${k.outcome}`,
      `reason: ${reason}`,
      k.reason_code ? `reason_code: ${k.reason_code}` : '',
      k.decline_reason ? `decline_reason: ${k.decline_reason}` : '',
      `query: ${k.query ?? '(none)'}`,
    ]
      .filter(Boolean)
      .join('\n');
    caseLines.push(
      `${open}>`,
      ...idProps,
      `      <${broken ? 'error' : 'failure'}${attrs({ message: `${k.outcome}: ${reason}`, type: k.outcome })}>${xmlText(body)}</${broken ? 'error' : 'failure'}>`,
      '    </testcase>',
    );
  }
  const props = [
    ['corpus.name', summary.corpus.name],
    ['corpus.version', summary.corpus.version === null ? '' : String(summary.corpus.version)],
    ['corpus.size', String(summary.corpus.size)],
    ['corpus.sha256', summary.corpus.sha256],
    ['run.agent', summary.run.agent ?? ''],
    ['run.model', summary.run.model ?? ''],
    ['run.path', summary.run.path ?? ''],
    ['run.created_at', summary.run.created_at ?? ''],
  ].map(([name, value]) => `      <property${attrs({ name: name!, value: value! })}/>`);

  const suites: string[] = [
    `  <testsuite${attrs({
      name: suiteName,
      tests: summary.cases.length,
      failures,
      errors,
      skipped: 0,
      time: seconds(details.timeSeconds),
      ...(details.timestamp ? { timestamp: details.timestamp } : {}),
    })}>`,
    '    <properties>',
    ...props.map((p) => `  ${p}`),
    '    </properties>',
    ...caseLines,
    '  </testsuite>',
  ];
  let totalTests = summary.cases.length;
  let totalFailures = failures;
  let totalErrors = errors;
  let totalSkipped = 0;
  if (gate) {
    const lines: string[] = [];
    let f = 0;
    let e = 0;
    let s = 0;
    for (const c of gate.checks) {
      const open = `    <testcase${attrs({ name: c.name, classname: 'sql-verdict.gate' })}`;
      const text = xmlText([c.arithmetic, c.detail].filter(Boolean).join('\n'));
      if (c.status === 'blocked') {
        f++;
        lines.push(
          `${open}>`,
          `      <failure${attrs({ message: c.arithmetic, type: 'blocked' })}>${text}</failure>`,
          '    </testcase>',
        );
      } else if (c.status === 'refused') {
        e++;
        lines.push(
          `${open}>`,
          `      <error${attrs({ message: c.arithmetic, type: 'refused' })}>${text}</error>`,
          '    </testcase>',
        );
      } else if (c.status === 'not_applicable') {
        s++;
        lines.push(`${open}>`, `      <skipped${attrs({ message: c.arithmetic })}/>`, '    </testcase>');
      } else {
        lines.push(`${open}>`, `      <system-out>${text}</system-out>`, '    </testcase>');
      }
    }
    suites.push(
      `  <testsuite${attrs({ name: `gate: ${gate.status}`, tests: gate.checks.length, failures: f, errors: e, skipped: s })}>`,
      ...lines,
      '  </testsuite>',
    );
    totalTests += gate.checks.length;
    totalFailures += f;
    totalErrors += e;
    totalSkipped += s;
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: 'sql-verdict', tests: totalTests, failures: totalFailures, errors: totalErrors, skipped: totalSkipped, time: seconds(details.timeSeconds), ...(details.timestamp ? { timestamp: details.timestamp } : {}) })}>`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

/** The JUnit details of a run report (`sql-verdict run --out`): questions, per-case times, start and length. */
export function junitDetailsOf(report: {
  run_metadata?: { started_at?: string; elapsed_ms?: number };
  cases?: { id: string; question?: string; report?: { run_metadata?: { timings_ms?: { total?: number } } } | null }[];
}): JUnitDetails {
  const cases: NonNullable<JUnitDetails['cases']> = {};
  for (const c of report.cases ?? []) {
    const ms = c.report?.run_metadata?.timings_ms?.total;
    cases[c.id] = {
      ...(c.question ? { question: c.question } : {}),
      ...(typeof ms === 'number' ? { timeSeconds: ms / 1000 } : {}),
    };
  }
  return {
    ...(report.run_metadata?.started_at ? { timestamp: report.run_metadata.started_at } : {}),
    ...(typeof report.run_metadata?.elapsed_ms === 'number'
      ? { timeSeconds: report.run_metadata.elapsed_ms / 1000 }
      : {}),
    cases,
  };
}
