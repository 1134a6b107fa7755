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
const blocks = (lang: string) =>
  [...doc.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

interface Step {
  run?: string;
  uses?: string;
  name?: string;
}
interface Job {
  'runs-on': string;
  needs?: string | string[];
  strategy?: { matrix?: Record<string, unknown> };
  steps: Step[];
}
type Workflow = { on: unknown; jobs: Record<string, Job> };
const workflows = blocks('yaml').map((b) => parseYaml(b) as Workflow);
/** The sharded recipe: the workflow with a matrix job running `run --shard`. */
const sharded = workflows.find((w) =>
  Object.values(w.jobs).some((j) => j.strategy?.matrix && j.steps.some((s) => s.run?.includes('--shard'))),
);

/** Every `sql-verdict <command> …` invocation in a shell text, as [command, flags]. */
function invocations(text: string): [string, string[]][] {
  const out: [string, string[]][] = [];
  for (const m of text.replace(/\\\n/g, ' ').matchAll(/sql-verdict[ \t]+([a-z]+)([^\n]*)/g)) {
    out.push([m[1]!, [...m[2]!.matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g)].map((f) => f[1]!)]);
  }
  return out;
}

describe('docs/ci.md GitHub Actions workflow', () => {
  it('every yaml block is a workflow: triggers, jobs on a runner with Node, steps that use or run something', () => {
    for (const w of workflows) {
      expect(w.on).toBeTruthy();
      const jobs = Object.values(w.jobs);
      expect(jobs.length).toBeGreaterThan(0);
      for (const job of jobs) {
        expect(job['runs-on']).toMatch(/\S/);
        for (const step of job.steps) expect(Boolean(step.run) !== Boolean(step.uses)).toBe(true);
        expect(job.steps.some((s) => s.uses?.startsWith('actions/setup-node'))).toBe(true);
      }
    }
  });

  const runs = workflows.flatMap((w) => Object.values(w.jobs).flatMap((j) => j.steps.map((s) => s.run ?? '')));
  const calls = [
    ...invocations(runs.join('\n')),
    ...blocks('sh').flatMap(invocations),
    ...blocks('console').flatMap(invocations),
  ];

  it('uses the CLI: run with thresholds, JUnit and Markdown; gate; diff --fail-on-regression', () => {
    const all = calls.map(([c, f]) => `${c} ${f.join(' ')}`).join('\n');
    expect(all).toMatch(/^run .*--min-accuracy/m);
    expect(all).toMatch(/^run .*--junit/m);
    expect(all).toMatch(/^gate /m);
    expect(all).toMatch(/^diff .*--fail-on-regression/m);
  });

  it('the sharded recipe: a matrix of N shard jobs, each "run --shard K/N", and a merge job of all N reports after them', () => {
    expect(sharded, 'a workflow block with a matrix job running run --shard').toBeTruthy();
    const jobs = Object.entries(sharded!.jobs);
    const [shardName, shardJob] = jobs.find(([, j]) => j.strategy?.matrix)!;
    const [axis, values] = Object.entries(shardJob.strategy!.matrix!).find(([, v]) => Array.isArray(v)) as [
      string,
      number[],
    ];
    const n = values.length;
    expect(values).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    const runStep = shardJob.steps.find((s) => s.run?.includes('--shard'))!.run!;
    expect(runStep).toMatch(/sql-verdict run /);
    expect(runStep).toContain(`--shard \${{ matrix.${axis} }}/${n}`);
    const out = /--out (\S*\$\{\{[^}]*\}\}\S*|\S+)/.exec(runStep)![1]!;
    const mergeJob = jobs.find(([, j]) => j.steps.some((s) => /sql-verdict merge /.test(s.run ?? '')))?.[1];
    expect(mergeJob, 'a job running sql-verdict merge').toBeTruthy();
    expect([mergeJob!.needs].flat()).toContain(shardName);
    const mergeRun = mergeJob!.steps.find((s) => /sql-verdict merge /.test(s.run ?? ''))!.run!;
    // Every shard's report, by the file name the shard job wrote.
    for (const k of values) expect(mergeRun).toContain(out.replace(`\${{ matrix.${axis} }}`, String(k)));
    expect(mergeRun).toMatch(/--out \S+/);
    expect(mergeRun).toMatch(/--min-accuracy/);
  });

  it('every command and flag it uses exists in the CLI (its --help lists it)', async () => {
    const helps = new Map<string, string>();
    for (const [command, flags] of calls) {
      if (!helps.has(command)) {
        const help = await runCli([command, '--help']);
        expect(help.code, `sql-verdict ${command} --help`).toBe(0);
        helps.set(command, help.stdout);
      }
      for (const flag of flags)
        expect(helps.get(command), `sql-verdict ${command} ${flag}`).toMatch(new RegExp(`(^|[\\s\\[])${flag}\\b`));
    }
  });
});
