import { mount } from 'svelte';
import { ENGINE_NAMES, type EngineName } from '../core/engine.ts';
import App from './App.svelte';
import './app.css';
import { startAppWorker } from './state/app-client.ts';
import { Playground } from './state/playground.svelte.ts';

const worker = startAppWorker();
const playground = new Playground(worker.api);
void worker.failed.then((reason) => playground.fail(reason));

// `?engine=sqlite` starts on that engine instead of DuckDB.
const requested = new URLSearchParams(location.search).get('engine');
if ((ENGINE_NAMES as readonly (string | null)[]).includes(requested)) playground.engine = requested as EngineName;

mount(App, { target: document.getElementById('app')!, props: { playground } });

void playground.useDemo();
