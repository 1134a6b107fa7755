// Child-process bootstrap: lets a native DuckDB engine host process run the TypeScript host directly from source
// (tests, and the CLI in a checkout whose lib/ is stale). The entry is the last argument.
import { register } from 'tsx/esm/api';

register();
await import(process.argv[process.argv.length - 1]);
