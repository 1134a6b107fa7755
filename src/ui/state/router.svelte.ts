/** Hash routes: the app is static, every view is a fragment. */
export type Route =
  | { view: 'home' }
  | { view: 'run'; id: string }
  | { view: 'case'; id: string; caseId: string }
  | { view: 'playground' }
  | { view: 'query' }
  | { view: 'compare' }
  | { view: 'corpus' }
  | { view: 'monitor' }
  | { view: 'share'; fragment: string }
  | { view: 'share-run'; fragment: string };

/** A path segment decoded; a malformed escape (a link cut inside `%E2%80`, a stray `%`) is kept as written. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // decodeURIComponent throws on it: at start-up that left a blank page, later the route stopped following the hash.
    return segment;
  }
}

export function parseRoute(hash: string): Route {
  if (hash.startsWith('#/s/')) return { view: 'share', fragment: hash };
  if (hash.startsWith('#/r/')) return { view: 'share-run', fragment: hash };
  // A query string appended to the fragment (a tracker, a chat client) is not part of the route: the app writes ids
  // encoded (a '?' in one is %3F), and with it kept #/playground?x=1 fell through to the home page.
  const path = hash.replace(/^#\/?/, '').replace(/\?.*$/s, '');
  const parts = path.split('/').filter(Boolean).map(decodeSegment);
  if (parts[0] === 'runs' && parts[1] && parts[2] === 'cases' && parts[3])
    return { view: 'case', id: parts[1], caseId: parts[3] };
  if (parts[0] === 'runs' && parts[1]) return { view: 'run', id: parts[1] };
  if (
    parts[0] === 'playground' ||
    parts[0] === 'query' ||
    parts[0] === 'compare' ||
    parts[0] === 'corpus' ||
    parts[0] === 'monitor'
  )
    return { view: parts[0] };
  return { view: 'home' };
}

export function hrefFor(route: Route): string {
  switch (route.view) {
    case 'home':
      return '#/';
    case 'run':
      return `#/runs/${encodeURIComponent(route.id)}`;
    case 'case':
      return `#/runs/${encodeURIComponent(route.id)}/cases/${encodeURIComponent(route.caseId)}`;
    case 'share':
    case 'share-run':
      return route.fragment;
    default:
      return `#/${route.view}`;
  }
}

export class Router {
  route = $state.raw<Route>(parseRoute(location.hash));

  constructor() {
    addEventListener('hashchange', () => {
      this.route = parseRoute(location.hash);
    });
  }

  go(route: Route): void {
    location.hash = hrefFor(route);
  }

  /**
   * Go to `route` in place of the current history entry: a share link, once opened, hands over to the view it
   * opened. With go(), Back returned to the link, which opened again: a run link stored one more copy of its run
   * each time, a comparison link reset the playground, and Back never got past it.
   */
  replace(route: Route): void {
    location.replace(hrefFor(route));
  }
}
