import type { FastifyInstance } from 'fastify';
import { DASHBOARD_PREFIX } from './dashboard.js';

/**
 * The links the Weave SDKs print, answered with a redirect to the dashboard's page for the same thing. The SDKs build
 * them from the host of WANDB_BASE_URL as W&B's app lays them out:
 * - `/<entity>/<project>/r/call/<call id>` (after each traced root call),
 * - `/<entity>/<project>/weave/ops/<name>/versions/<digest>` and `/weave/objects/<name>/versions/<digest>` (published
 *   ops and objects),
 * - `/<entity>/<project>/weave` (the project, printed by `weave.init`).
 * The redirect carries no credential and reads nothing: the dashboard resolves the call's trace with the key the
 * person signed in with, so a link leaks nothing to someone without access. Fixed segments (`r/call`, `weave`) keep
 * these patterns clear of every API mount, whose first segment is static and wins in Fastify's router anyway.
 */
export const WEAVE_LINK_REDIRECTS: { pattern: string; target(params: Record<string, string>): string }[] = [
  {
    pattern: '/:entity/:project/r/call/:callId',
    target: (p) => `/calls/${seg(p.entity)}/${seg(p.project)}/${seg(p.callId)}`,
  },
  {
    pattern: '/:entity/:project/weave/ops/:name/versions/:digest',
    target: (p) => `/objects/${seg(p.entity)}/${seg(p.project)}/${seg(p.name)}/${seg(p.digest)}`,
  },
  {
    pattern: '/:entity/:project/weave/objects/:name/versions/:digest',
    target: (p) => `/objects/${seg(p.entity)}/${seg(p.project)}/${seg(p.name)}/${seg(p.digest)}`,
  },
  {
    pattern: '/:entity/:project/weave',
    target: (p) => `/traces?project=${encodeURIComponent(`${p.entity}/${p.project}`)}`,
  },
];

function seg(value: string | undefined): string {
  return encodeURIComponent(value ?? '');
}

export function registerWeaveLinks(app: FastifyInstance): void {
  for (const link of WEAVE_LINK_REDIRECTS) {
    app.get<{ Params: Record<string, string> }>(link.pattern, { schema: { hide: true } }, async (request, reply) =>
      reply.redirect(`${DASHBOARD_PREFIX}${link.target(request.params)}`, 302),
    );
  }
}
