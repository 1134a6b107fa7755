/**
 * `run --neighbours K` on the command line: the human-readable summary says what the neighbours did
 * (cases checked, coincidental matches, cases the budget cut short), so a budget that ran out is
 * not read as "every passing case was checked on K neighbours".
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

describe('run --neighbours', () => {
  it('names the cases whose neighbour budget ran out', async () => {
    const r = await runCli([
      'run',
      '--corpus',
      'refusal_battery',
      '--run',
      'fixtures/runs/refusal_battery.strong.json',
      '--neighbours',
      '4',
      '--neighbour-budget-ms',
      '1',
    ]);
    expect(r.code).toBe(1); // the strong sample's one missed refusal
    expect(r.stdout).toMatch(
      /^Neighbours \(K = 4, base seed 1\): 20 cases passing on the fixture, 0 coincidental_match; 20 cut short by the budget \(1 ms\), \d+ neighbours checked in all: ctl-/m,
    );
  }, 300_000);
});
