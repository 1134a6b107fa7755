/**
 * JUnit XML: one <testcase> per corpus case so CI systems show failures
 * natively, and, when a gate result is given, one <testcase> per gate check
 * (blocked → <failure>, refused → <error>, not applicable → <skipped>).
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

export function toJUnit(summary: RunSummary, gate?: GateResult): string {
  const suiteName = `${summary.corpus.name}${summary.corpus.version === null ? '' : ` v${summary.corpus.version}`}`;
  const caseLines: string[] = [];
  let failures = 0;
  for (const k of summary.cases) {
    const classname = ['sql-verdict', summary.corpus.name, k.arm ?? 'graded', k.stratum ?? k.shape].filter(Boolean).join('.');
    const open = `    <testcase${attrs({ name: k.id, classname })}`;
    if (isSuccess(k.outcome)) {
      caseLines.push(`${open}/>`);
      continue;
    }
    failures++;
    const reason = k.reason ?? DEFAULT_REASONS[k.outcome];
    const body = [
      `outcome: ${k.outcome}`,
      `reason: ${reason}`,
      k.reason_code ? `reason_code: ${k.reason_code}` : '',
      k.decline_reason ? `decline_reason: ${k.decline_reason}` : '',
      `query: ${k.query ?? '(none)'}`,
    ]
      .filter(Boolean)
      .join('\n');
    caseLines.push(`${open}>`, `      <failure${attrs({ message: `${k.outcome}: ${reason}`, type: k.outcome })}>${xmlText(body)}</failure>`, '    </testcase>');
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
    `  <testsuite${attrs({ name: suiteName, tests: summary.cases.length, failures, errors: 0, skipped: 0 })}>`,
    '    <properties>',
    ...props.map((p) => `  ${p}`),
    '    </properties>',
    ...caseLines,
    '  </testsuite>',
  ];
  let totalTests = summary.cases.length;
  let totalFailures = failures;
  let totalErrors = 0;
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
        lines.push(`${open}>`, `      <failure${attrs({ message: c.arithmetic, type: 'blocked' })}>${text}</failure>`, '    </testcase>');
      } else if (c.status === 'refused') {
        e++;
        lines.push(`${open}>`, `      <error${attrs({ message: c.arithmetic, type: 'refused' })}>${text}</error>`, '    </testcase>');
      } else if (c.status === 'not_applicable') {
        s++;
        lines.push(`${open}>`, `      <skipped${attrs({ message: c.arithmetic })}/>`, '    </testcase>');
      } else {
        lines.push(`${open}>`, `      <system-out>${text}</system-out>`, '    </testcase>');
      }
    }
    suites.push(`  <testsuite${attrs({ name: `gate: ${gate.status}`, tests: gate.checks.length, failures: f, errors: e, skipped: s })}>`, ...lines, '  </testsuite>');
    totalTests += gate.checks.length;
    totalFailures += f;
    totalErrors += e;
    totalSkipped += s;
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: 'sql-verdict', tests: totalTests, failures: totalFailures, errors: totalErrors, skipped: totalSkipped })}>`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
