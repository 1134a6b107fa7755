/**
 * Schema-agnostic evaluation (STEF, seed 000): grade SQL with no reference
 * and no schema from the question (Q_u), the enriched question (Q_e), the SQL
 * (S) and the application rules (R_app). Pure; plain data in and out.
 */
export type * from './types.ts';
export { FILTER_STATUSES, VERDICT_LABELS } from './types.ts';
export { evaluateStef, evaluateStefWithJudge, enrichedDrift } from './evaluate.ts';
export { extractQuestion, hasSpec } from './extract-question.ts';
export { extractSql } from './extract-sql.ts';
export { alignFilters, filterScore, predicateWindow } from './align.ts';
export { rulesVerdict } from './verdict.ts';
export { baseScore, gammaFactor, phi, VERDICT_SCORE } from './score.ts';
export { DEFAULT_SAFETY_LIMIT, parseRules } from './rules.ts';
export { judgeVerdict, parseJudgeVerdict, STEF_JUDGE_SYSTEM } from './judge-verdict.ts';
export type {
  AgentStats,
  LogError,
  LogMonitorOptions,
  LogRecord,
  MonitorReport,
  PeriodStats,
  ScoredRecord,
} from './monitor.ts';
export { LogMonitor, mean, monitor, parseLog, parseLogLine, percentile, scoreLog, weekOf } from './monitor.ts';
export type { Mutation } from './validation.ts';
export { MUTATIONS, mutateSql, rocAuc } from './validation.ts';
export type { Vocabulary } from './vocabulary/en.ts';
export { en, VOCABULARIES } from './vocabulary/en.ts';
