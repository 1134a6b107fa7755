/** The CLI's JSON printer is the core's (a grading worker prints case reports with it too). */
export { prettyJson, prettyJsonPieces, printJson, rememberPrinted } from '../core/report/pretty-json.ts';
