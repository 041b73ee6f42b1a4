import { GraphQLError, parse, type DocumentNode, type ExecutionResult } from 'graphql';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isAsyncIterable } from '../platform/async/guards.js';
import { RequestAbortController } from '../platform/async/request-abort-controller.js';
import { TrellisError, trellisErrorFromGraphQL, unexpectedError } from '../platform/errors.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { errorResponse } from './error-shapes.js';
import type { Family, RouteInput, SseOptions } from './route.js';

/**
 * Runs a subscription of one subgraph (graphql's `subscribe()`), which the Apollo gateway cannot do. Returns the
 * event stream, or a result with errors when the subscription could not start.
 */
export type SubscriptionExecutor = (
  subgraph: string,
  document: DocumentNode,
  variables: Record<string, unknown>,
  context: GraphQLContext,
) => Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;

const documents = new WeakMap<SseOptions, DocumentNode>();

/**
 * Serves one server-sent-events response from a subscription. The first event is awaited before anything is
 * written, so a request that fails early (bad input, limits, unreachable upstream) still gets its family's
 * ordinary error status and body; afterwards each event is flushed as soon as it exists.
 */
export async function serveEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  sse: SseOptions,
  input: RouteInput,
  family: Family,
  execute: SubscriptionExecutor,
): Promise<void> {
  let document = documents.get(sse);
  if (!document) {
    document = parse(sse.subscription);
    documents.set(sse, document);
  }
  const controller = new RequestAbortController();
  let iterator: AsyncIterableIterator<ExecutionResult> | undefined;
  let ended = false;
  const onClose = () => {
    if (ended) return;
    ended = true;
    controller.abort();
    void iterator?.return?.();
  };
  reply.raw.once('close', onClose);
  const context: GraphQLContext = {
    principal: request.principal,
    requestId: String(request.id),
    logger: request.log,
    signal: controller.signal,
  };

  const started = await execute(sse.subgraph, document, sse.variables(input), context);
  if (!isAsyncIterable(started)) throw firstError(started);
  iterator = started;
  let next: IteratorResult<ExecutionResult>;
  try {
    next = await iterator.next();
  } catch (error) {
    throw asTrellisError(error);
  }
  if (!next.done && next.value.errors?.length) {
    void iterator.return?.();
    throw firstError(next.value);
  }

  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': String(request.id),
    // Proxies such as nginx buffer responses unless told not to; an event stream must not be.
    'x-accel-buffering': 'no',
  });
  // Events that are ready in the same tick leave as one string in one write (one chunk of the chunked body, one
  // syscall), not one write each: a write costs Node a request object, a callback and chunk framing of its own.
  let pending = '';
  const flush = () => {
    const text = pending;
    pending = '';
    if (text !== '' && !response.destroyed) response.write(text);
  };
  const write = (payload: unknown) => {
    if (response.destroyed) return;
    if (pending === '') process.nextTick(flush);
    pending += `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`;
  };
  let failed = false;
  let sent = 0;
  const writeError = (error: TrellisError) => {
    const body = errorResponse(family, error).body;
    write(sse.errorEvent ? sse.errorEvent(body, sent) : body);
  };
  try {
    while (!next.done && !ended) {
      if (next.value.errors?.length) {
        writeError(firstError(next.value));
        failed = true;
        break;
      }
      write(sse.event(next.value.data));
      sent++;
      next = await iterator.next();
    }
  } catch (error) {
    if (!ended) {
      const trellisError = asTrellisError(error);
      if (trellisError.status >= 500 && trellisError.code === 'INTERNAL') request.log.error({ err: error }, 'event stream failed');
      writeError(trellisError);
    }
    failed = true;
  }
  if (!ended) {
    ended = true;
    if (!failed && sse.done !== undefined) write(sse.done);
    const rest = pending;
    pending = '';
    if (response.destroyed) return;
    if (rest === '') response.end();
    else response.end(rest);
  }
}

function firstError(result: ExecutionResult): TrellisError {
  const error = result.errors?.[0];
  if (!error) return new TrellisError(500, 'INTERNAL', 'Internal server error');
  return asTrellisError(error);
}

function asTrellisError(error: unknown): TrellisError {
  if (error instanceof TrellisError) return error;
  if (error instanceof GraphQLError) {
    if (error.originalError instanceof TrellisError) return error.originalError;
    if (error.extensions?.code) return trellisErrorFromGraphQL(error);
  }
  // A bug, or an unreachable service or database (UNAVAILABLE): platform/errors.ts decides which.
  return unexpectedError(error);
}
