/**
 * Hash routes as links arrive: a query string appended to the fragment (a tracker, a chat client, a hand edit)
 * does not change the view the link names.
 */
import { describe, expect, it } from 'vitest';
import { parseRoute } from '../../src/ui/state/router.svelte.ts';

describe('parseRoute', () => {
  it('ignores a query string after the route (before: #/playground?x=1 opened the home page, unexplained)', () => {
    expect(parseRoute('#/playground?utm_source=chat')).toEqual({ view: 'playground' });
    expect(parseRoute('#/compare?a=1&b=2')).toEqual({ view: 'compare' });
    expect(parseRoute('#/corpus?file=../x')).toEqual({ view: 'corpus' });
    expect(parseRoute('#/runs/abc?x=1')).toEqual({ view: 'run', id: 'abc' });
    expect(parseRoute('#/runs/abc/cases/c%201?x=1')).toEqual({ view: 'case', id: 'abc', caseId: 'c 1' });
    expect(parseRoute('#/?x')).toEqual({ view: 'home' });
  });

  it('keeps a share link whole: its checksum decides whether an appended query is refused', () => {
    expect(parseRoute('#/s/abc?x=1')).toEqual({ view: 'share', fragment: '#/s/abc?x=1' });
    expect(parseRoute('#/r/abc?x=1')).toEqual({ view: 'share-run', fragment: '#/r/abc?x=1' });
  });
});
