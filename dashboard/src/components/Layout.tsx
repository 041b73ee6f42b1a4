import { useEffect, useRef, type ReactNode } from 'react';
import { Link, matchPath, useRouter } from '../router';
import { routes } from '../routes';
import { useSession } from '../viewer';

/** Skip link, banner with the signed-in user, the page navigation, and the main landmark. */
export function Layout({ children }: { children: ReactNode }) {
  const { viewer, signOut } = useSession();
  const { location } = useRouter();
  // After an in-app navigation, focus moves to the new page's main region (screen readers announce it; Tab
  // continues from there), as a full page load would do. Not on the first render.
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus({ preventScroll: false });
  }, [location.path]);
  const current = (path: string) => (path === '/' ? location.path === '/' : location.path === path || location.path.startsWith(`${path}/`));
  return (
    <div className="layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            T
          </span>
          Trellis
        </Link>
        <div className="topbar-user">
          <span className="who" data-testid="signed-in-as">
            Signed in as <strong>{viewer.username}</strong>
            {viewer.isAdmin ? <span className="badge">platform admin</span> : null}
          </span>
          <button type="button" className="button button-quiet" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <nav className="sidebar" aria-label="Pages">
        <ul>
          {routes
            .filter((route) => route.nav)
            .map((route) => (
              <li key={route.path}>
                <Link to={route.path} aria-current={current(route.path) ? 'page' : undefined} className="nav-link">
                  {route.title}
                </Link>
              </li>
            ))}
        </ul>
        <p className="sidebar-foot">
          <a href="/graphql">GraphQL explorer</a>
        </p>
      </nav>
      <main id="main" className="content" tabIndex={-1} ref={main}>
        {children}
      </main>
    </div>
  );
}

/** The route for a path (first match in the table), with its params. */
export function resolveRoute(path: string) {
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return null;
}
