/**
 * The column names of a defog-style predictions CSV, first match wins. A leaf module: the page's
 * folder detection (folder.ts) reads them without loading the importer (and YAML).
 */
export const PRED_COLUMNS = ['generated_query', 'sql', 'predicted_sql', 'prediction'];
