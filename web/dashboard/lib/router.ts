// A small history router: the path picks the page (lib/paths.ts), `?mode=test` the mode, which
// every link and navigation keeps. Links are real <a href>s, so they open in new tabs too.
import { useEffect, useState } from 'preact/hooks';

export interface Location { pathname: string; search: URLSearchParams }

const current = (): Location => ({ pathname: location.pathname, search: new URLSearchParams(location.search) });
const listeners = new Set<() => void>();

export function navigate(to: string, opts: { replace?: boolean; keepMode?: boolean } = {}): void {
  const url = new URL(to, location.origin);
  if (opts.keepMode !== false && isTestMode() && !url.searchParams.has('mode')) url.searchParams.set('mode', 'test');
  const target = url.pathname + url.search;
  if (target === location.pathname + location.search) return;
  history[opts.replace ? 'replaceState' : 'pushState'](null, '', target);
  for (const l of listeners) l();
}

export const isTestMode = (): boolean => new URLSearchParams(location.search).get('mode') === 'test';

/** An href with the current mode kept. */
export function href(path: string): string {
  if (!isTestMode()) return path;
  return path.includes('?') ? `${path}&mode=test` : `${path}?mode=test`;
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    addEventListener('popstate', update);
    return () => { listeners.delete(update); removeEventListener('popstate', update); };
  }, []);
  return loc;
}

/** Plain left clicks on same-origin links move inside the app instead of loading the page. */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as HTMLElement).closest('a');
    if (!a || a.target || a.hasAttribute('download') || a.origin !== location.origin) return;
    e.preventDefault();
    navigate(a.pathname + a.search, { keepMode: false });
  });
}
