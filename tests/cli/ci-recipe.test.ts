/**
 * docs/ci.md's GitHub Actions workflow stays runnable: it parses as a workflow, and every
 * `sql-verdict` command and flag it (and the page's shell blocks) uses is one the CLI has.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../helpers/cli.ts';
import { repoRoot } from '../helpers/paths.ts';

const doc = readFileSync(path.join(repoRoot, 'docs/ci.md'), 'utf8');
const blocks = (lang: string) => [...doc.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

interface Step {
  run?: string;
  uses?: string;
  name?: string;
}
const workflow = parseYaml(blocks('yaml')[0]!) as { on: unknown; jobs: Record<string, { 'runs-on': string; steps: Step[] }> };

/** Every `sql-verdict <command> …` invocation in a shell text, as [command, flags]. */
function invocations(text: string): [string, string[]][] {
  const out: [string, string[]][] = [];
  for (const m of text.replace(/\\\n/g, ' ').matchAll(/sql-verdict\s+([a-z]+)([^\n]*)/g)) {
    out.push([m[1]!, [...m[2]!.matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g)].map((f) => f[1]!)]);
  }
  return out;
}

describe('docs/ci.md GitHub Actions workflow', () => {
  it('is a workflow: triggers, a job on a runner, steps that use or run something', () => {
    expect(workflow.on).toBeTruthy();
    const jobs = Object.values(workflow.jobs);
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) {
      expect(job['runs-on']).toMatch(/\S/);
      for (const step of job.steps) expect(Boolean(step.run) !== Boolean(step.uses)).toBe(true);
    }
    expect(jobs[0]!.steps.some((s) => s.uses?.startsWith('actions/setup-node'))).toBe(true);
  });

  const runs = Object.values(workflow.jobs).flatMap((j) => j.steps.map((s) => s.run ?? ''));
  const calls = [...invocations(runs.join('\n')), ...blocks('sh').flatMap(invocations), ...blocks('console').flatMap(invocations)];

  it('uses the CLI: run with thresholds, JUnit and Markdown; gate; diff --fail-on-regression', () => {
    const all = calls.map(([c, f]) => `${c} ${f.join(' ')}`).join('\n');
    expect(all).toMatch(/^run .*--min-accuracy/m);
    expect(all).toMatch(/^run .*--junit/m);
    expect(all).toMatch(/^gate /m);
    expect(all).toMatch(/^diff .*--fail-on-regression/m);
  });

  it('every command and flag it uses exists in the CLI (its --help lists it)', async () => {
    const helps = new Map<string, string>();
    for (const [command, flags] of calls) {
      if (!helps.has(command)) {
        const help = await runCli([command, '--help']);
        expect(help.code, `sql-verdict ${command} --help`).toBe(0);
        helps.set(command, help.stdout);
      }
      for (const flag of flags) expect(helps.get(command), `sql-verdict ${command} ${flag}`).toMatch(new RegExp(`(^|[\\s\\[])${flag}\\b`));
    }
  });
});
