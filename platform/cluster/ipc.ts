import cluster, { type Worker } from 'node:cluster';

/**
 * Requests from the worker processes of one `npm start` (a process per core, node:cluster) to their primary, over
 * the IPC channel node:cluster opens: what the processes must decide together (model limits) or report together
 * (metrics). Messages carry a `trellis` tag so they never mix with node:cluster's or prom-client's own.
 */
interface RequestMessage {
  trellis: 'request';
  id: number;
  kind: string;
  payload: unknown;
}

interface ResponseMessage {
  trellis: 'response';
  id: number;
  result?: unknown;
  /** A failure the handler meant (e.g. over a limit): the worker rebuilds it by `failure.kind`. */
  failure?: { kind: string; message: string; details?: unknown };
}

interface NoticeMessage {
  trellis: 'notice';
  kind: string;
  payload: unknown;
}

type ClusterMessage = RequestMessage | ResponseMessage | NoticeMessage;

function isClusterMessage(message: unknown): message is ClusterMessage {
  return typeof message === 'object' && message !== null && typeof (message as { trellis?: unknown }).trellis === 'string';
}

/** A failure a primary-side handler reports to the asking worker as such (not as a crash). */
export class ClusterFailure extends Error {
  constructor(
    readonly kind: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export class PrimaryUnreachableError extends Error {
  override name = 'PrimaryUnreachableError';
}

/** The worker's side: asks the primary and waits for its answer. */
export class PrimaryChannel {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  constructor() {
    if (!cluster.isWorker || !process.send) throw new Error('PrimaryChannel is for node:cluster worker processes');
    process.on('message', (message: unknown) => {
      if (!isClusterMessage(message) || message.trellis !== 'response') return;
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.failure) waiting.reject(new ClusterFailure(message.failure.kind, message.failure.message, message.failure.details));
      else waiting.resolve(message.result);
    });
    // The primary went away (killed): nothing still waiting will be answered.
    process.on('disconnect', () => {
      for (const waiting of this.pending.values()) waiting.reject(new PrimaryUnreachableError('the primary process is gone'));
      this.pending.clear();
    });
  }

  request<T>(kind: string, payload: unknown): Promise<T> {
    if (!process.connected) return Promise.reject(new PrimaryUnreachableError('the primary process is gone'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      process.send!({ trellis: 'request', id, kind, payload } satisfies RequestMessage);
    });
  }

  /** A one-way message (nothing is answered, nothing is waited for). */
  notify(kind: string, payload: unknown): void {
    if (process.connected) process.send!({ trellis: 'notice', kind, payload } satisfies NoticeMessage);
  }
}

export type PrimaryHandler = (payload: any, worker: Worker) => unknown;

/**
 * The primary's side: answers workers' requests and notices by kind. A handler's ClusterFailure goes back as a
 * failure; any other error is reported to the worker as an internal failure and logged by the caller's `onError`.
 */
export function servePrimaryRequests(handlers: Record<string, PrimaryHandler>, onError: (error: unknown, kind: string) => void): void {
  cluster.on('message', (worker, message: unknown) => {
    if (!isClusterMessage(message) || message.trellis === 'response') return;
    const handler = handlers[message.kind];
    if (message.trellis === 'notice') {
      if (!handler) return onError(new Error(`no handler for the notice "${message.kind}"`), message.kind);
      try {
        handler(message.payload, worker);
      } catch (error) {
        onError(error, message.kind);
      }
      return;
    }
    const { id, kind } = message;
    const answer = (response: Omit<ResponseMessage, 'trellis' | 'id'>) => {
      if (worker.isConnected()) worker.send({ trellis: 'response', id, ...response } satisfies ResponseMessage);
    };
    new Promise((resolve) => {
      if (!handler) throw new Error(`no handler for the request "${kind}"`);
      resolve(handler(message.payload, worker));
    }).then(
      (result) => answer({ result }),
      (error: unknown) => {
        if (error instanceof ClusterFailure) return answer({ failure: { kind: error.kind, message: error.message, details: error.details } });
        onError(error, kind);
        answer({ failure: { kind: 'internal', message: 'the primary process failed to answer' } });
      },
    );
  });
}
