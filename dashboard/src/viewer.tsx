import { createContext, useContext } from 'react';
import type { DashboardViewerQuery } from './graphql/generated';

export type Viewer = NonNullable<DashboardViewerQuery['viewer']>;

export interface Session {
  viewer: Viewer;
  signOut(): void;
}

export const SessionContext = createContext<Session | null>(null);

/** The signed-in user (every page renders inside a session). */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a session');
  return session;
}
