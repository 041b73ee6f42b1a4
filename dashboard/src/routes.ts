import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/**
 * The route registry: one line per page. A page is one file, `pages/<Page>.tsx`, whose default export receives
 * the route's params; each is loaded on first visit (its own chunk). `nav` pages appear in the sidebar, in this
 * order. Patterns are relative to /ui (see router.tsx); the first match wins.
 */
export interface PageProps {
  params: Record<string, string>;
}

export interface RouteDefinition {
  path: string;
  title: string;
  nav?: boolean;
  component: LazyExoticComponent<ComponentType<PageProps>>;
}

export const routes: RouteDefinition[] = [
  { path: '/', title: 'Home', nav: true, component: lazy(() => import('./pages/Home')) },
  { path: '/traces', title: 'Traces', nav: true, component: lazy(() => import('./pages/Traces')) },
  { path: '/traces/:entity/:project/:traceId', title: 'Trace', component: lazy(() => import('./pages/Trace')) },
  { path: '/calls/:entity/:project/:callId', title: 'Call', component: lazy(() => import('./pages/CallLink')) },
  { path: '/objects/:entity/:project/:name/:digest', title: 'Object', component: lazy(() => import('./pages/TraceObject')) },
  { path: '/evaluations', title: 'Evaluations', nav: true, component: lazy(() => import('./pages/Evaluations')) },
  { path: '/monitors', title: 'Monitors', nav: true, component: lazy(() => import('./pages/Monitors')) },
  { path: '/datasets', title: 'Datasets', nav: true, component: lazy(() => import('./pages/Datasets')) },
  { path: '/prompts', title: 'Prompts', nav: true, component: lazy(() => import('./pages/Prompts')) },
  { path: '/inference', title: 'Inference', nav: true, component: lazy(() => import('./pages/Inference')) },
  { path: '/training', title: 'Training', nav: true, component: lazy(() => import('./pages/Training')) },
  { path: '/training/jobs/:jobId', title: 'Training job', component: lazy(() => import('./pages/TrainingJob')) },
  { path: '/automations', title: 'Automations', nav: true, component: lazy(() => import('./pages/Automations')) },
  { path: '/settings', title: 'Settings', nav: true, component: lazy(() => import('./pages/Settings')) },
];
