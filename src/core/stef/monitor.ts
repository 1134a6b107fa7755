/**
 * Monitoring: a JSONL log of production queries → per agent version mean Φ,
 * P90, coverage, over time (day or ISO week buckets), worst queries.
 */
import { evaluateStef } from './evaluate.ts';
import type { AppRules, StefReport } from './types.ts';

export interface LogRecord {
  timestamp: string;
  agent_version: string;
  /** Q_u */
  question: string;
  /** Q_e */
  enriched_question?: string | null;
  /** S */
  sql: string;
}

export interface LogError {
  line: number;
  field: string | null;
  message: string;
}

const REQUIRED = ['timestamp', 'agent_version', 'question', 'sql'] as const;

/** Parse a JSONL log; every malformed line is an error naming its line and field. Blank lines are skipped. */
export function parseLog(text: string): { records: LogRecord[]; errors: LogError[] } {
  const records: LogRecord[] = [];
  const errors: LogError[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim()) return;
    let o: unknown;
    try {
      o = JSON.parse(raw);
    } catch (thrown) {
      errors.push({ line, field: null, message: `not valid JSON (${(thrown as Error).message})` });
      return;
    }
    if (!o || typeof o !== 'object' || Array.isArray(o)) {
      errors.push({ line, field: null, message: 'must be a JSON object' });
      return;
    }
    const r = o as Record<string, unknown>;
    for (const f of REQUIRED) {
      if (typeof r[f] !== 'string' || !(r[f] as string).trim()) {
        errors.push({ line, field: f, message: `${f} must be a non-empty string` });
        return;
      }
    }
    if (Number.isNaN(Date.parse(r.timestamp as string))) {
      errors.push({ line, field: 'timestamp', message: `timestamp "${String(r.timestamp)}" is not an ISO date-time` });
      return;
    }
    if (r.enriched_question !== undefined && r.enriched_question !== null && typeof r.enriched_question !== 'string') {
      errors.push({ line, field: 'enriched_question', message: 'enriched_question must be a string or null' });
      return;
    }
    records.push({
      timestamp: r.timestamp as string,
      agent_version: r.agent_version as string,
      question: r.question as string,
      enriched_question: (r.enriched_question as string | null | undefined) ?? null,
      sql: r.sql as string,
    });
  });
  return { records, errors };
}

/** Nearest-rank percentile (P90: the value at rank ⌈0.9 n⌉ of the sorted scores). */
export function percentile(values: number[], p: number): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)]!;
}

export function mean(values: number[]): number | null {
  if (!values.length) return null;
  return Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 10) / 10;
}

export interface ScoredRecord {
  record: LogRecord;
  line: number;
  /** null when the query could not be evaluated (SQL does not parse, or the question yields no specification). */
  report: StefReport | null;
  reason: string | null;
}

export interface PeriodStats {
  period: string;
  queries: number;
  evaluated: number;
  coverage: number;
  mean_phi: number | null;
  p90_phi: number | null;
}

export interface AgentStats extends Omit<PeriodStats, 'period'> {
  agent_version: string;
  periods: PeriodStats[];
  worst: {
    timestamp: string;
    question: string;
    sql: string;
    phi: number | null;
    verdict: string | null;
    filter_status: string | null;
    reason: string | null;
  }[];
}

export interface MonitorReport {
  bucket: 'day' | 'week';
  queries: number;
  agents: AgentStats[];
}

/** Monday of the ISO week of a date, as YYYY-MM-DD (weeks are named by their Monday). */
export function weekOf(timestamp: string): string {
  const d = new Date(Date.parse(timestamp));
  const day = (d.getUTCDay() + 6) % 7;
  d.setUTCDate(d.getUTCDate() - day);
  return d.toISOString().slice(0, 10);
}

function stats(rows: ScoredRecord[]): Omit<PeriodStats, 'period'> {
  const phis = rows.flatMap((r) => (r.report ? [r.report.phi] : []));
  return {
    queries: rows.length,
    evaluated: phis.length,
    coverage: rows.length ? Math.round((phis.length / rows.length) * 1000) / 1000 : 0,
    mean_phi: mean(phis),
    p90_phi: percentile(phis, 90),
  };
}

/** Score every record (rules only). */
export function scoreLog(records: LogRecord[], rules: AppRules = {}): ScoredRecord[] {
  return records.map((record, i) => {
    const r = evaluateStef({
      question: record.question,
      enriched_question: record.enriched_question,
      sql: record.sql,
      rules,
    });
    return { record, line: i + 1, report: r.ok ? r.value : null, reason: r.ok ? null : r.error.message };
  });
}

/** Aggregate scored records per agent version and period. */
export function monitor(scored: ScoredRecord[], opts: { bucket?: 'day' | 'week'; worst?: number } = {}): MonitorReport {
  const bucket = opts.bucket ?? 'day';
  const byAgent = new Map<string, ScoredRecord[]>();
  for (const s of scored) byAgent.set(s.record.agent_version, [...(byAgent.get(s.record.agent_version) ?? []), s]);
  const agents: AgentStats[] = [...byAgent.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([agent_version, rows]) => {
      const byPeriod = new Map<string, ScoredRecord[]>();
      for (const r of rows) {
        const p =
          bucket === 'week'
            ? weekOf(r.record.timestamp)
            : new Date(Date.parse(r.record.timestamp)).toISOString().slice(0, 10);
        byPeriod.set(p, [...(byPeriod.get(p) ?? []), r]);
      }
      const periods = [...byPeriod.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([period, rs]) => ({ period, ...stats(rs) }));
      const worst = [...rows]
        .sort((a, b) => (a.report?.phi ?? -1) - (b.report?.phi ?? -1))
        .slice(0, opts.worst ?? 5)
        .map((r) => ({
          timestamp: r.record.timestamp,
          question: r.record.question,
          sql: r.record.sql,
          phi: r.report?.phi ?? null,
          verdict: r.report?.semantic_verdict.label ?? null,
          filter_status: r.report?.filter_alignment.status ?? null,
          reason: r.reason,
        }));
      return { agent_version, ...stats(rows), periods, worst };
    });
  return { bucket, queries: scored.length, agents };
}
