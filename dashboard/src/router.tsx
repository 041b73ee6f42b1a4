import { createContext, useCallback, useContext, useEffect, useMemo, useState, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';

/**
 * A small History API router. The dashboard's URLs all live under `/ui/` — a prefix no API mount uses, so a
 * client-side route (`/ui/traces/...`) can never shadow `/traces` (REST) or `/graphql`; the server answers any
 * browser navigation under `/ui/` with index.html. Paths in this file are relative to that base: `/traces`.
 */
export const BASE = '/ui';

export interface Location {
  /** Path relative to BASE, starting with `/`. */
  path: string;
  search: URLSearchParams;
}

function currentLocation(): Location {
  const { pathname, search } = window.location;
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) || '/' : '/';
  return { path, search: new URLSearchParams(search) };
}

/** `/traces` + `{ project: 'a/b' }` → `/ui/traces?project=a%2Fb` (params with empty values are left out). */
export function href(path: string, params?: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params ?? {})) {
    if (value !== null && value !== undefined && value !== '') search.set(name, String(value));
  }
  const query = search.toString();
  return `${BASE}${path === '/' ? '/' : path}${query ? `?${query}` : ''}`;
}

interface RouterValue {
  location: Location;
  navigate(to: string, options?: { replace?: boolean }): void;
}

const RouterContext = createContext<RouterValue | null>(null);

export function RouterProvider({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState(currentLocation);
  useEffect(() => {
    const onPop = () => setLocation(currentLocation());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((to: string, options?: { replace?: boolean }) => {
    const target = to.startsWith(BASE) ? to : `${BASE}${to}`;
    if (options?.replace) window.history.replaceState(null, '', target);
    else window.history.pushState(null, '', target);
    setLocation(currentLocation());
  }, []);
  const value = useMemo(() => ({ location, navigate }), [location, navigate]);
  return <RouterContext.Provider value={value}>{children}</RouterContext.Provider>;
}

export function useRouter(): RouterValue {
  const value = useContext(RouterContext);
  if (!value) throw new Error('useRouter outside RouterProvider');
  return value;
}

/** The current query string as a record, and a setter that replaces (not pushes) the URL. */
export function useSearchParams(): [URLSearchParams, (params: Record<string, string | number | null | undefined>, options?: { push?: boolean }) => void] {
  const { location, navigate } = useRouter();
  const set = useCallback(
    (params: Record<string, string | number | null | undefined>, options?: { push?: boolean }) => {
      navigate(href(location.path, params), { replace: !options?.push });
    },
    [location.path, navigate],
  );
  return [location.search, set];
}

/** Matches `/traces/:entity/:project` against a path; the params, or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const patternParts = pattern.split('/').filter(Boolean);
  const pathParts = path.split('/').filter(Boolean);
  if (patternParts.length !== pathParts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < patternParts.length; i++) {
    const expected = patternParts[i]!;
    const actual = pathParts[i]!;
    if (expected.startsWith(':')) params[expected.slice(1)] = decodeURIComponent(actual);
    else if (expected !== actual) return null;
  }
  return params;
}

/** An in-app link: a real `<a href>` (open in a new tab works) that navigates without a reload. */
export function Link({ to, children, ...rest }: { to: string; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const { navigate } = useRouter();
  const target = to.startsWith(BASE) ? to : `${BASE}${to}`;
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(target);
  };
  return (
    <a {...rest} href={target} onClick={onClick}>
      {children}
    </a>
  );
}
