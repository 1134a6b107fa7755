// Preload for tests/cli/atomic-output.test.ts: every fs.writeSync to a file
// under SLOW_WRITES_DIR announces itself on stderr ("SLOW_WRITE <path>") and
// then waits 20 s, so the test can SIGKILL the CLI in the middle of a write.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const dir = process.env.SLOW_WRITES_DIR;
const realWriteSync = fs.writeSync;
fs.writeSync = function slowWriteSync(fd, ...rest) {
  let target = '';
  try {
    target = fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    // Not a file descriptor with a path.
  }
  if (dir && target.startsWith(dir)) {
    process.stderr.write(`SLOW_WRITE ${target}\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20_000);
  }
  return realWriteSync.call(fs, fd, ...rest);
};
syncBuiltinESMExports();
