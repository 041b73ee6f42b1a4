import { Component, Suspense, useCallback, useEffect, useMemo, useState, type ErrorInfo, type ReactNode } from 'react';
import { Provider } from 'urql';
import { forgetKey, storedKey, storeKey } from './auth';
import { createGraphClient, describeError, formatError, type GraphClient } from './client';
import { Layout, resolveRoute } from './components/Layout';
import { PageHeader } from './components/PageHeader';
import { Empty, ErrorState, Loading } from './components/States';
import { DashboardViewerDocument } from './graphql/generated';
import { RouterProvider, useRouter } from './router';
import { SignIn } from './SignIn';
import { SessionContext, type Session, type Viewer } from './viewer';

type AuthState =
  | { kind: 'signed-out'; error: string | null }
  | { kind: 'checking'; key: string; graph: GraphClient }
  | { kind: 'signed-in'; key: string; graph: GraphClient; viewer: Viewer };

/** Checks a key by asking for the viewer; the viewer, or why the key was refused. */
async function checkKey(graph: GraphClient): Promise<{ viewer: Viewer } | { error: string }> {
  const result = await graph.client.query(DashboardViewerDocument, {}, { requestPolicy: 'network-only' }).toPromise();
  if (result.error) return { error: describeError(result.error).map(formatError).join('; ') };
  if (!result.data?.viewer) return { error: 'UNAUTHENTICATED: the key was not accepted' };
  return { viewer: result.data.viewer };
}

export function App() {
  const [auth, setAuth] = useState<AuthState>(() => {
    const key = storedKey();
    return key ? { kind: 'checking', key, graph: createGraphClient(key) } : { kind: 'signed-out', error: null };
  });

  useEffect(() => {
    if (auth.kind !== 'checking') return;
    let cancelled = false;
    void checkKey(auth.graph).then((outcome) => {
      if (cancelled) return;
      if ('viewer' in outcome) {
        storeKey(auth.key);
        setAuth({ kind: 'signed-in', key: auth.key, graph: auth.graph, viewer: outcome.viewer });
      } else {
        auth.graph.close();
        forgetKey();
        setAuth({ kind: 'signed-out', error: outcome.error });
      }
    });
    return () => {
      cancelled = true;
    };
  }, [auth]);

  const signOut = useCallback(() => {
    forgetKey();
    if (auth.kind !== 'signed-out') auth.graph.close();
    setAuth({ kind: 'signed-out', error: null });
  }, [auth]);

  const session: Session | null = useMemo(() => (auth.kind === 'signed-in' ? { viewer: auth.viewer, signOut } : null), [auth, signOut]);

  if (auth.kind !== 'signed-in' || !session) {
    return (
      <SignIn
        checking={auth.kind === 'checking'}
        error={auth.kind === 'signed-out' ? auth.error : null}
        onSignIn={(key) => setAuth({ kind: 'checking', key, graph: createGraphClient(key) })}
      />
    );
  }
  return (
    <Provider value={auth.graph.client}>
      <SessionContext.Provider value={session}>
        <RouterProvider>
          <Layout>
            <CurrentPage />
          </Layout>
        </RouterProvider>
      </SessionContext.Provider>
    </Provider>
  );
}

function CurrentPage() {
  const { location } = useRouter();
  const match = resolveRoute(location.path);
  if (!match) {
    return (
      <>
        <PageHeader title="Not found" />
        <Empty title={`There is no page at ${location.path}.`}>Pick one from the navigation.</Empty>
      </>
    );
  }
  const Page = match.route.component;
  return (
    <PageBoundary key={location.path}>
      <Suspense fallback={<Loading label={`Loading ${match.route.title}…`} />}>
        <Page params={match.params} />
      </Suspense>
    </PageBoundary>
  );
}


/** A page that throws shows its error in place; the navigation stays usable. */
class PageBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override componentDidCatch(_error: unknown, _info: ErrorInfo) {}
  override render() {
    if (this.state.error) return <ErrorState error={this.state.error} title="This page failed" />;
    return this.props.children;
  }
}
