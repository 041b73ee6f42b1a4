import type { TSchema } from '@sinclair/typebox';
import type { Principal } from '../platform/auth/principal.js';
import type { ValidationIssue } from '../platform/errors.js';
import type { ProjectName } from './known-projects.js';

/**
 * The REST adapter is a table: each documented REST path is declared once, with its request schema (used both
 * to validate and to generate /openapi.json) and the gateway operation it maps onto. No route has a handler of
 * its own; `register-routes.ts` is the only code that serves them.
 */
export const FAMILIES = ['tracing', 'inference', 'training', 'platform'] as const;
export type Family = (typeof FAMILIES)[number];

/** Where each family's base URL is mounted on the platform's one port. */
export const FAMILY_MOUNTS: Record<Family, string> = {
  tracing: '/traces',
  inference: '/inference/v1',
  training: '/training',
  platform: '',
};

export interface RouteInput<Body = any, Params = any, Query = any> {
  body: Body;
  params: Params;
  query: Query;
  principal: Principal | null;
  headers: Record<string, string | string[] | undefined>;
}

export interface RestRoute<Body = any, Params = any, Query = any> {
  family: Family;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the family mount, Fastify syntax (`/v2/:entity/:project/scores`). */
  path: string;
  summary: string;
  /** Default: an API key is required. */
  auth?: 'required' | 'none';
  schema?: { body?: TSchema; params?: TSchema; querystring?: TSchema; response?: TSchema };
  /** Per-route request body limit in bytes (defaults to the platform limit). */
  bodyLimit?: number;
  /** The GraphQL document executed through the gateway. */
  operation: string;
  variables(input: RouteInput<Body, Params, Query>): Record<string, unknown>;
  /**
   * Where a validation issue the operation reports at a GraphQL path of its variables (`["input","startedAt"]`)
   * lies in this route's request (`["body","start","started_at"]`), so REST clients keep the wire's locations
   * (typed inputs have `wireLocation` for this). Paths it does not know are returned as they are.
   */
  issueLocation?(loc: ValidationIssue['loc'], input: RouteInput<Body, Params, Query>): ValidationIssue['loc'];
  /**
   * Shapes the REST response body from the operation's `data`. A Buffer is sent as bytes
   * (application/octet-stream unless `contentType` says otherwise).
   */
  response(data: any, input: RouteInput<Body, Params, Query>): unknown;
  status?: number;
  /** A success status that depends on the result (e.g. a health report answering 503 when a check failed). */
  responseStatus?(data: any): number;
  /** Content-Type of the success response (default: JSON, or octet-stream for a Buffer). */
  contentType?: string;
  /**
   * Stream the response instead of building it: the operation runs once per page and each page's items are
   * written as JSON lines as soon as the page arrives, so memory stays bounded by one page. `response` is unused.
   */
  stream?: RouteStream<Body, Params, Query>;
  /**
   * The request is multipart/form-data: text fields become strings of `body` and file parts Buffers (validated
   * against `schema.body` like a JSON body); `variables` usually passes files on as base64.
   */
  multipart?: { maxFileBytes: number; maxFields?: number };
  /**
   * Where the body schema is enforced. `edge` (default): Fastify rejects a non-conforming body before the operation
   * runs. `operation`: the schema is still declared (OpenAPI) but the operation validates the body itself with the
   * same schema (validateOrThrow), so the family can account for rejected requests (e.g. usage records).
   */
  bodyValidation?: 'edge' | 'operation';
  /**
   * The one subgraph the operation touches. When it runs in this process the operation is executed on its schema
   * directly, skipping the gateway's planning (for hot paths); otherwise it goes through the gateway as usual.
   */
  subgraph?: string;
  /**
   * The project the route writes to, created on first write. Before the operation runs, the adapter runs identity's
   * `ensureProject(entity, name)` through the gateway (it creates the project for members of the entity and
   * answers 403 to anyone else, creating nothing), unless this process has already seen the project exist
   * (KnownProjects). The operation must authorize the caller itself, since a known project skips identity.
   * Together with `subgraph`, a write to a known project never touches the gateway. Null: nothing to ensure.
   */
  ensureProject?(input: RouteInput<Body, Params, Query>): ProjectName | null;
  /**
   * The project the route reads, which must exist. Before the operation runs, the adapter asks identity
   * (`project(entity, name)` through the gateway: 403 for callers outside the entity, 404 when there is no such
   * project), unless this process has already seen the project exist (KnownProjects). With `subgraph`, the
   * operation's `project(entity: …, name: …) { … }` then runs on that subgraph as its Project entity reference
   * (rest-adapter/project-reference.ts), so a read of a known project never touches the gateway. The subgraph's
   * resolvers must authorize the caller themselves. Null: nothing to check.
   */
  readsProject?(input: RouteInput<Body, Params, Query>): ProjectName | null;
  /**
   * Server-sent events: when `when(input)` holds, the route executes `subscription` against the named subgraph's
   * schema (the gateway cannot run subscriptions) and writes each event as a `data:` line, then `data: <done>`.
   * Errors before the first event are answered as ordinary error responses; later ones as a last `data:` event
   * carrying the family's error body. A client that disconnects ends the subscription and aborts the context's
   * signal.
   */
  sse?: SseOptions<Body, Params, Query>;
}

export interface SseOptions<Body = any, Params = any, Query = any> {
  when(input: RouteInput<Body, Params, Query>): boolean;
  /** The subgraph that owns the Subscription field. */
  subgraph: string;
  subscription: string;
  variables(input: RouteInput<Body, Params, Query>): Record<string, unknown>;
  /** Shapes one event's `data:` payload from the subscription result's `data`. */
  event(data: any): unknown;
  /** The last data line, e.g. OpenAI's `[DONE]`; omitted when undefined. */
  done?: string;
  /**
   * Shapes the event that ends a stream failing after its first event, from the family's error body and the number
   * of events already sent (default: the error body itself), for protocols whose error event has its own shape.
   */
  errorEvent?(body: unknown, eventsSent: number): unknown;
}

export interface RouteStream<Body = any, Params = any, Query = any> {
  /** Default `application/jsonl`. */
  contentType?: string;
  /** Variables for the page after `cursor` (null for the first page). */
  pageVariables(input: RouteInput<Body, Params, Query>, cursor: string | null): Record<string, unknown>;
  /** The items of one page (one JSON line each) and the cursor of the next page, or null after the last. */
  page(data: any, input: RouteInput<Body, Params, Query>): { items: unknown[]; nextCursor: string | null };
  /** How the items are written when not as JSON lines (null: JSON lines), e.g. CSV: its type, a first line, each item's line. */
  encode?(input: RouteInput<Body, Params, Query>): { contentType: string; header: string; line(item: unknown): string } | null;
}

/**
 * What a family answers for a request under its mount that no route of its table serves (an endpoint of the
 * client's API this server does not implement), instead of the generic "No route …". Registered as a not-found
 * handler scoped to the family's mount, so the family's error shape applies.
 */
export interface UnknownPathRule {
  family: Family;
  message(method: string, path: string): string;
}

/** Identity function that lets TypeScript infer a route's types from its schemas. */
export function defineRoute<Body = any, Params = any, Query = any>(route: RestRoute<Body, Params, Query>): RestRoute<Body, Params, Query> {
  return route;
}
