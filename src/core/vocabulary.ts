/**
 * The case vocabulary of the spec, defined once: the shapes a case's answer
 * takes and the difficulty labels (Spider's four levels, which the structural
 * layer computes when a case states none, and BIRD's own three, kept as they
 * are). Corpus loading, requests, the result comparison, hardness, the gate's
 * summary and breakdowns, and the app all read these lists.
 */
export const SHAPES = ['scalar', 'group_by', 'top_n', 'time_series', 'rows'] as const;
export type Shape = (typeof SHAPES)[number];

export const SPIDER_DIFFICULTIES = ['easy', 'medium', 'hard', 'extra'] as const;
export type SpiderDifficulty = (typeof SPIDER_DIFFICULTIES)[number];
export const BIRD_DIFFICULTIES = ['simple', 'moderate', 'challenging'] as const;
/** Every label a case may state, Spider's first. */
export const DIFFICULTIES = [...SPIDER_DIFFICULTIES, ...BIRD_DIFFICULTIES] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];

/**
 * The built-in corpora (fixtures/corpora/NAME.yaml), by the name `--corpus NAME` takes; the demo's first.
 * The CLI resolves these names and the app lists these files.
 */
export const BUILT_IN_CORPORA = ['execution_goldens', 'refusal_battery'] as const;
