/**
 * The run report's version (`report_version`, written by `gradeRun`) and the versions the readers of a
 * report (the gate, `baseline record`, `diff`, the app's "open a report") accept: every version this code
 * has written, and no other. A report of a newer version may mean something these readers do not know
 * (a field added, a figure redefined): it is refused, naming the file and the field, not read as if older.
 *
 * 1.1.0: judge_summary, per-case reason_code and review_flags, run_metadata.resumed_cases.
 * 1.2.0: shard (a report of some shards of a run, src/core/report/merge.ts); summary.breakdowns, ci95 on every
 * summary rate, summary.cases[].tags.
 */
export const RUN_REPORT_VERSION = '1.2.0';

/** Every run report version the readers accept (all share summary_version 1; see report-file.ts for 1.0/1.1). */
export const READABLE_RUN_REPORT_VERSIONS: readonly string[] = ['1.0.0', '1.1.0', RUN_REPORT_VERSION];

/** Why a run report's `report_version` cannot be read (missing, not a version, or unknown), or null. */
export function reportVersionProblem(version: unknown): string | null {
  const readable = `this sql-verdict reads run reports of version ${READABLE_RUN_REPORT_VERSIONS.join(', ')}`;
  if (version === undefined)
    return `report_version is missing: ${readable}; re-run "sql-verdict run" to get a report that states its version.`;
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+$/.test(version))
    return `report_version must be a version like "${RUN_REPORT_VERSION}", got ${JSON.stringify(version) ?? 'nothing'}: ${readable}.`;
  if (!READABLE_RUN_REPORT_VERSIONS.includes(version))
    return `report_version ${version} is not one this sql-verdict can read (${readable}): a newer sql-verdict wrote it, or it was edited; use the sql-verdict that wrote it, or re-run "sql-verdict run".`;
  return null;
}
