/** Process entry of the sql-verdict command (bin/sql-verdict.mjs loads the compiled form). */
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
