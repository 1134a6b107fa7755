/**
 * Which kind of file a picked text is, from its first bytes: a leaf module, so that the page can tell a run
 * report from a run or a corpus without loading the readers (and their YAML parser) the app worker uses.
 */

/** Does this text look like a run report (JSON or JSONL), rather than a run or a corpus? */
export function looksLikeRunReport(head: string): boolean {
  return /"kind"\s*:\s*"run"/.test(head) && /"report_version"\s*:/.test(head);
}
