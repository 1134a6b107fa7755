/** Tiny benchmark harness: named figures, printed with their ratio to a recorded baseline. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** Lower is better for times and sizes; rates set this to false. */
  lowerIsBetter?: boolean;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function timeIt(fn: () => unknown | Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export interface Baseline {
  recorded: string;
  machine: string;
  figures: Record<string, number>;
  /** Figures recorded later than `recorded`, by name prefix: when and where. */
  notes?: Record<string, string>;
}

export function loadBaseline(file: string): Baseline | null {
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, 'utf8')) as Baseline;
}

export function printFigures(title: string, figures: Figure[], baseline: Baseline | null): void {
  console.log(`\n## ${title}`);
  const width = Math.max(...figures.map((f) => f.name.length));
  for (const f of figures) {
    const base = baseline?.figures[f.name];
    const ratio = base ? ` (×${(f.value / base).toFixed(2)} vs baseline ${base.toFixed(2)})` : '';
    console.log(`${f.name.padEnd(width)}  ${f.value.toFixed(2).padStart(10)} ${f.unit}${ratio}`);
  }
}

export function recordBaseline(file: string, figures: Figure[], machine: string): void {
  const previous = loadBaseline(file);
  const merged: Baseline = {
    recorded: new Date().toISOString().slice(0, 10),
    machine,
    figures: {
      ...(previous?.figures ?? {}),
      ...Object.fromEntries(figures.map((f) => [f.name, Math.round(f.value * 100) / 100])),
    },
  };
  writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
}

/**
 * Merge some figures into the baseline without re-recording the rest: the
 * baseline's date and machine stay; `notes[prefix]` says when and where these were measured.
 */
export function mergeBaselineFigures(file: string, figures: Figure[], prefix: string, note: string): void {
  const previous = loadBaseline(file);
  const merged: Baseline = {
    recorded: previous?.recorded ?? new Date().toISOString().slice(0, 10),
    machine: previous?.machine ?? note,
    figures: {
      ...(previous?.figures ?? {}),
      ...Object.fromEntries(figures.map((f) => [f.name, Math.round(f.value * 100) / 100])),
    },
    notes: { ...(previous?.notes ?? {}), [prefix]: `recorded ${new Date().toISOString().slice(0, 10)}, ${note}` },
  };
  writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
}
