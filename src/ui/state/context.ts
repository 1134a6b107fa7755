/**
 * App-wide state reachable from deep components without threading props
 * through views other people own: main.ts mounts the app with this context.
 */
import { getContext } from 'svelte';
import type { Workspace } from './workspace.svelte.ts';

export const WORKSPACE_KEY = Symbol('sql-verdict.workspace');

/** The page's workspace, or undefined where a component is mounted without it. */
export function workspaceFromContext(): Workspace | undefined {
  return getContext<Workspace | undefined>(WORKSPACE_KEY);
}
