/** Web Worker entry of an engine host (see src/engines/browser.ts). */
import { expose } from 'comlink';
import { createBrowserSession } from '../engines/browser-sessions.ts';
import { createHostApi } from '../engines/host.ts';

expose(createHostApi(createBrowserSession));
