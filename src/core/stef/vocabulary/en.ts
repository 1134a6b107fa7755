/**
 * English vocabulary of the question-side extraction: data only, so another
 * language is one more file of the same shape (see docs/stef.md).
 * Phrases are lower case; longer phrases are tried first.
 */
export interface Vocabulary {
  language: string;
  /** NL phrase → aggregate. */
  aggregations: { phrase: string; func: 'SUM' | 'AVG' | 'COUNT' | 'MIN' | 'MAX'; distinct?: boolean }[];
  /** Superlatives: direction of ORDER BY (and MAX/MIN as an equivalent for a single answer). */
  descending: string[];
  ascending: string[];
  /** Words that ask for a sort order explicitly. */
  explicitOrder: { phrase: string; direction: 'ASC' | 'DESC' | null }[];
  /** Phrases introducing a grouping key: "per region", "for each month". */
  grouping: string[];
  /** Verbs after which "by" is not a grouping ("ordered by", "rounded by"). */
  byNotGrouping: string[];
  /** Comparison phrases before a number. */
  comparisons: { phrase: string; operator: '>' | '>=' | '<' | '<=' | '=' }[];
  /** Phrases before a noun meaning "has no value": IS NULL. */
  nullPhrases: string[];
  /** Negation prefixes before a value: "non-cancelled", "not cancelled". */
  negations: string[];
  /** Phrases that ask for a list of entities. */
  listing: string[];
  /** Number words. */
  numbers: Record<string, number>;
  months: string[];
  /** Words skipped when naming a term. */
  stopwords: string[];
  /** Nouns that name an attribute, so "in the north region" is region = north. */
  attributeNouns: string[];
}

export const en: Vocabulary = {
  language: 'en',
  aggregations: [
    { phrase: 'how many different', func: 'COUNT', distinct: true },
    { phrase: 'how many distinct', func: 'COUNT', distinct: true },
    { phrase: 'how many unique', func: 'COUNT', distinct: true },
    { phrase: 'number of different', func: 'COUNT', distinct: true },
    { phrase: 'number of distinct', func: 'COUNT', distinct: true },
    { phrase: 'number of unique', func: 'COUNT', distinct: true },
    { phrase: 'count of distinct', func: 'COUNT', distinct: true },
    { phrase: 'how many', func: 'COUNT' },
    { phrase: 'number of', func: 'COUNT' },
    { phrase: 'count of', func: 'COUNT' },
    { phrase: 'count', func: 'COUNT' },
    { phrase: 'total number of', func: 'COUNT' },
    { phrase: 'total', func: 'SUM' },
    { phrase: 'sum of', func: 'SUM' },
    { phrase: 'sum', func: 'SUM' },
    { phrase: 'how much', func: 'SUM' },
    { phrase: 'average', func: 'AVG' },
    { phrase: 'mean', func: 'AVG' },
    { phrase: 'avg', func: 'AVG' },
    { phrase: 'maximum', func: 'MAX' },
    { phrase: 'max', func: 'MAX' },
    { phrase: 'minimum', func: 'MIN' },
    { phrase: 'min', func: 'MIN' },
  ],
  descending: ['highest', 'most', 'top', 'largest', 'biggest', 'greatest', 'best', 'maximum', 'most recent', 'most recently', 'latest', 'newest', 'last'],
  ascending: ['lowest', 'least', 'fewest', 'bottom', 'smallest', 'worst', 'minimum', 'cheapest', 'earliest', 'oldest', 'first'],
  explicitOrder: [
    { phrase: 'highest first', direction: 'DESC' },
    { phrase: 'largest first', direction: 'DESC' },
    { phrase: 'most recent first', direction: 'DESC' },
    { phrase: 'in descending order', direction: 'DESC' },
    { phrase: 'descending', direction: 'DESC' },
    { phrase: 'from most to', direction: 'DESC' },
    { phrase: 'from highest to', direction: 'DESC' },
    { phrase: 'lowest first', direction: 'ASC' },
    { phrase: 'smallest first', direction: 'ASC' },
    { phrase: 'oldest first', direction: 'ASC' },
    { phrase: 'in ascending order', direction: 'ASC' },
    { phrase: 'ascending', direction: 'ASC' },
    { phrase: 'from lowest to', direction: 'ASC' },
    { phrase: 'from least to', direction: 'ASC' },
    { phrase: 'in calendar order', direction: 'ASC' },
    { phrase: 'in chronological order', direction: 'ASC' },
    { phrase: 'alphabetically', direction: 'ASC' },
    { phrase: 'sorted by', direction: null },
    { phrase: 'ordered by', direction: null },
  ],
  grouping: ['for each', 'for every', 'in each', 'per', 'by', 'each', 'broken down by', 'grouped by'],
  byNotGrouping: ['ordered', 'sorted', 'ranked', 'rank', 'rounded', 'placed', 'brought', 'made', 'divided', 'multiplied', 'increase', 'increased', 'change', 'changed', 'fall', 'fell', 'grow', 'grew', 'followed', 'identified', 'then', 'ties', 'tie', 'breaking', 'sold', 'bought', 'used', 'created'],
  comparisons: [
    { phrase: 'more than', operator: '>' },
    { phrase: 'greater than', operator: '>' },
    { phrase: 'higher than', operator: '>' },
    { phrase: 'over', operator: '>' },
    { phrase: 'above', operator: '>' },
    { phrase: 'exceeding', operator: '>' },
    { phrase: 'at least', operator: '>=' },
    { phrase: 'no less than', operator: '>=' },
    { phrase: 'less than', operator: '<' },
    { phrase: 'fewer than', operator: '<' },
    { phrase: 'lower than', operator: '<' },
    { phrase: 'under', operator: '<' },
    { phrase: 'below', operator: '<' },
    { phrase: 'at most', operator: '<=' },
    { phrase: 'no more than', operator: '<=' },
    { phrase: 'equal to', operator: '=' },
    { phrase: 'exactly', operator: '=' },
  ],
  nullPhrases: ['without a', 'without an', 'without', 'with no', 'have no', 'has no', 'missing a', 'missing an', 'missing', 'lacking a', 'lacking'],
  negations: ['non-', 'non ', 'not ', 'excluding ', 'except '],
  listing: ['which', 'list', 'show', 'what are', 'give me', 'display', 'find all', 'name the'],
  numbers: { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twenty: 20, fifty: 50, hundred: 100 },
  months: ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'],
  stopwords: ['the', 'a', 'an', 'of', 'our', 'their', 'its', 'all', 'each', 'every', 'that', 'this', 'those', 'these', 'in', 'on', 'for', 'with', 'to', 'and', 'or', 'is', 'are', 'was', 'were', 'be', 'do', 'did', 'does', 'has', 'have', 'had', 'by', 'per', 'what', 'which', 'how', 'there'],
  attributeNouns: ['region', 'category', 'segment', 'channel', 'status', 'country', 'city', 'state', 'tier', 'type', 'department', 'team', 'plan', 'brand', 'store', 'warehouse', 'currency', 'market', 'group', 'level', 'priority', 'stage', 'source'],
};

export const VOCABULARIES: Record<string, Vocabulary> = { en };
