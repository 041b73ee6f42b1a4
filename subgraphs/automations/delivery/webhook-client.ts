import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import { Agent, buildConnector, errors, request } from 'undici';
import { AddressGuard } from './address-guard.js';
import { SecretRedactor } from '../secret/redaction.js';

export class AddressRefusedError extends Error {
  override name = 'AddressRefusedError';
  readonly code = 'E_ADDRESS_REFUSED';
}

export interface WebhookResponse {
  status: number;
  /** Secrets redacted. */
  headers: Record<string, string>;
  /** The start of the response body (at most `bodyLimit` characters), secrets redacted before it was cut. */
  body: string;
  /** Parsed Retry-After, in milliseconds. */
  retryAfterMs: number | undefined;
}

export type WebhookOutcome =
  | { kind: 'response'; response: WebhookResponse; durationMs: number }
  | { kind: 'error'; /** Secrets redacted. */ error: string; timedOut: boolean; refused: boolean; durationMs: number };

const NO_SECRETS = new SecretRedactor([]);

/**
 * POSTs webhook bodies: one pooled undici Agent whose connector refuses forbidden addresses at connect time
 * (after DNS, on the address actually used), no redirects (undici's `request` never follows them), and a hard
 * time limit per request.
 */
export class WebhookClient {
  private readonly agent: Agent;

  constructor(
    private readonly options: { allowCidrs: string[]; timeoutMs: number; bodyLimit: number },
  ) {
    const guard = new AddressGuard(options.allowCidrs);
    // Resolve names ourselves so a refused address is never connected to at all.
    const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
      dns.lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
        if (error) return callback(error, '', 0);
        const usable = (addresses as dns.LookupAddress[]).filter((entry) => guard.allows(entry.address));
        if (!usable.length) return callback(new AddressRefusedError(`${hostname} resolves only to refused addresses`), '', 0);
        if (lookupOptions.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, usable);
        callback(null, usable[0]!.address, usable[0]!.family);
      });
    };
    const connectBase = buildConnector({ timeout: options.timeoutMs, lookup } as buildConnector.BuildOptions);
    const connect: buildConnector.connector = (connectOptions, callback) => {
      // Literal IP hosts skip lookup: refuse them before connecting.
      const literal = connectOptions.hostname.replace(/^\[|\]$/g, '');
      if (net.isIP(literal) && !guard.allows(literal)) {
        return callback(new AddressRefusedError(`connecting to ${literal} is not allowed`), null);
      }
      connectBase(connectOptions, (error, socket) => {
        if (error) return callback(error, null);
        // And check the peer actually connected to, whatever resolved it.
        const address = socket!.remoteAddress;
        if (!address || !guard.allows(address)) {
          socket!.destroy();
          return callback(new AddressRefusedError(`connecting to ${address ?? 'an unknown address'} is not allowed`), null);
        }
        callback(null, socket!);
      });
    };
    this.agent = new Agent({
      connect,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connections: 256,
      keepAliveTimeout: 4_000,
    });
  }

  /**
   * `redactor`: the secrets sent with the request (the receiver may echo them): nothing of them is in the outcome.
   * The body is redacted before it is cut to `bodyLimit` characters, so a cut cannot split a secret out of reach.
   */
  async post(url: string, headers: Record<string, string>, body: string, redactor: SecretRedactor = NO_SECRETS): Promise<WebhookOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { kind: 'error', error: 'invalid endpoint URL', timedOut: false, refused: false, durationMs: 0 };
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return { kind: 'error', error: `unsupported URL scheme ${parsed.protocol}`, timedOut: false, refused: true, durationMs: 0 };
    }
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      const response = await request(parsed, { method: 'POST', headers, body, dispatcher: this.agent, signal });
      const { text, complete } = await readLimited(response.body, this.options.bodyLimit * 4);
      const responseHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined) responseHeaders[name] = redactor.redact(Array.isArray(value) ? value.join(', ') : value);
      }
      return {
        kind: 'response',
        response: {
          status: response.statusCode,
          headers: responseHeaders,
          body: redactor.redactAndTruncate(text, this.options.bodyLimit, !complete),
          retryAfterMs: parseRetryAfter(responseHeaders['retry-after']),
        },
        durationMs: elapsed(),
      };
    } catch (error) {
      const refused = error instanceof AddressRefusedError || (error as { cause?: unknown }).cause instanceof AddressRefusedError;
      const timedOut =
        signal.aborted ||
        error instanceof errors.HeadersTimeoutError ||
        error instanceof errors.BodyTimeoutError ||
        error instanceof errors.ConnectTimeoutError;
      const message = timedOut ? `timed out after ${this.options.timeoutMs} ms` : redactor.redactAndTruncate(describeError(error), 500);
      return { kind: 'error', error: message, timedOut, refused, durationMs: elapsed() };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** The body's first `limitBytes` bytes, as text; `complete` when that is the whole body. */
async function readLimited(body: AsyncIterable<Buffer> & { destroy(): void }, limitBytes: number): Promise<{ text: string; complete: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let complete = true;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limitBytes) {
      complete = false;
      body.destroy();
      break;
    }
  }
  // The last chunk may run far past the limit: redaction's work is bounded by what is kept here.
  return { text: Buffer.concat(chunks).subarray(0, limitBytes).toString('utf8'), complete };
}

function parseRetryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function describeError(error: unknown): string {
  const err = error as { message?: string; code?: string; cause?: { message?: string; code?: string } };
  const cause = err.cause?.message ? `: ${err.cause.message}` : '';
  return `${err.code ?? err.cause?.code ?? 'network error'}: ${err.message ?? String(error)}${cause}`;
}
