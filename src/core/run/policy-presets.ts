/** The benchmark policies a run can be graded under too (`--policy`): see preset-grade.ts. Its own module, light. */
export const POLICY_PRESETS = ['spider', 'bird'] as const;
export type PolicyPresetName = (typeof POLICY_PRESETS)[number];
