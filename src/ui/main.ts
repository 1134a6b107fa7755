import { mount } from 'svelte';
import { ENGINE_NAMES, type EngineName } from '../core/engine.ts';
import App from './App.svelte';
import './app.css';
import { startAppWorker } from './state/app-client.ts';
import { CorpusBrowser } from './state/corpus-browser.svelte.ts';
import { Comparison } from './state/comparison.svelte.ts';
import { JudgeSettings } from './state/judge-settings.svelte.ts';
import { Playground } from './state/playground.svelte.ts';
import { Router } from './state/router.svelte.ts';
import { STEF_SCORE_CONTEXT, StefScore } from './state/stef-score.svelte.ts';
import { LOG_MONITOR_CONTEXT, LogMonitorRun } from './state/log-monitor.svelte.ts';
import { Workspace } from './state/workspace.svelte.ts';
import { WORKSPACE_KEY } from './state/context.ts';
import { EDITOR_SUPPORT_KEY, EditorSupport } from './state/editor-support.ts';

const worker = startAppWorker();
const playground = new Playground(worker.api);
const judge = new JudgeSettings();
const workspace = new Workspace(worker.api, () => judge.config());
const comparison = new Comparison(worker.api, () => judge.config());
const router = new Router();
const stefScore = new StefScore(worker.api, () => judge.config());
const corpusBrowser = new CorpusBrowser(worker.api, workspace);
void worker.failed.then((reason) => playground.fail(reason));

// `?engine=sqlite` starts the query page on that engine instead of DuckDB.
const requested = new URLSearchParams(location.search).get('engine');
if ((ENGINE_NAMES as readonly (string | null)[]).includes(requested)) playground.engine = requested as EngineName;

// Context too: the results page's gate panel lists the other stored runs; the Monitor view's one-query score.
mount(App, {
  target: document.getElementById('app')!,
  props: { playground, workspace, router, comparison, judge, corpusBrowser },
  context: new Map<unknown, unknown>([
    [WORKSPACE_KEY, workspace],
    [STEF_SCORE_CONTEXT, stefScore],
    [LOG_MONITOR_CONTEXT, new LogMonitorRun(worker.api)],
    [EDITOR_SUPPORT_KEY, new EditorSupport(worker.api)],
  ]),
});

void workspace.init();
// Read by the browser bench and tests (time to the first graded case; how far the demo's warm-up went).
Object.defineProperty(window, '__verdict', {
  value: {
    get firstCaseAt() {
      return workspace.firstCaseAt;
    },
    get warmedUp() {
      return workspace.warmedUp;
    },
    get warmedReferences() {
      return workspace.warmedReferences;
    },
  },
});
// The query page's demo fixture loads lazily, when that page is first shown.
let demoLoaded = false;
const loadQueryDemo = () => {
  if (!demoLoaded && router.route.view === 'query') {
    demoLoaded = true;
    void playground.useDemo();
  }
};
addEventListener('hashchange', loadQueryDemo);
loadQueryDemo();

// While the home page is open, the demo's engines start in the background (when the browser is idle): a click on
// "Run the demo corpus" then finds DuckDB-WASM up and both fixtures loaded (about 270 MB more memory in Chromium,
// what a demo run leaves behind). Not with Save-Data, not on a device with 2 GB or less, not while a run (a resumed
// one) is grading, and once per page.
let warmedUp = false;
const warmUpDemo = () => {
  if (warmedUp || router.route.view !== 'home') return;
  const device = navigator as Navigator & { connection?: { saveData?: boolean }; deviceMemory?: number };
  if (device.connection?.saveData || (device.deviceMemory !== undefined && device.deviceMemory <= 2)) return;
  warmedUp = true;
  const whenIdle = (run: () => void) =>
    typeof requestIdleCallback === 'function' ? requestIdleCallback(run, { timeout: 2000 }) : setTimeout(run, 200);
  whenIdle(() => {
    if (workspace.activeId === null) void workspace.warmUp();
  });
};
addEventListener('hashchange', warmUpDemo);
warmUpDemo();

// Offline: a service worker caches the app shell, the workers and the wasm after the first visit.
if ('serviceWorker' in navigator && import.meta.env.PROD)
  void navigator.serviceWorker.register('./sw.js').catch(() => undefined);
