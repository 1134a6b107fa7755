/** Layer 5: the optional AI judge (advisory). See docs/judge.md. */
export * from './answer.ts';
export * from './batch.ts';
export * from './http.ts';
export * from './judge-case.ts';
export * from './prompt.ts';
export * from './provider.ts';
export { anthropicEndpoint, ANTHROPIC_VERSION } from './providers/anthropic.ts';
export * from './runtime.ts';
export * from './semaphore.ts';
