/** A warning on a case report: a stable code and a sentence for people. */
export interface Warning {
  code: string;
  message: string;
}
