import type { IncomingHttpHeaders } from 'node:http';
import type { Pool } from 'undici';
import { dispatchPost, type PostRequest } from './dispatch-post.js';

/**
 * A POST whose whole response body is wanted at once (non-streaming completions), through undici's `dispatch`
 * with a handler that collects the body's chunks: `pool.request()` would build a Readable stream per response
 * and a promise chain to read it, a measurable share of the proxy's CPU per request on this path.
 */
export interface WholeResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** The request failed after the status line arrived, while its body was being read. */
export class ResponseBodyError extends Error {
  constructor(
    readonly error: Error,
    readonly statusCode: number,
    readonly headers: IncomingHttpHeaders,
  ) {
    super(error.message);
  }
}

/**
 * Rejects with undici's own error when the request failed before a response started (connection error, no first
 * byte in time), with a ResponseBodyError when it failed while reading the body; `signal` aborts it.
 */
export function requestWhole(pool: Pool, request: PostRequest, signal: AbortSignal): Promise<WholeResponse> {
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    let headers: IncomingHttpHeaders = {};
    let started = false;
    const chunks: Buffer[] = [];
    try {
      dispatchPost(pool, request, signal, {
        onRequestStart() {},
        onResponseStart(_controller, status, responseHeaders) {
          statusCode = status;
          headers = responseHeaders;
          started = true;
        },
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          resolve({ statusCode, headers, text: Buffer.concat(chunks).toString('utf8') });
        },
        onResponseError(_controller, error) {
          reject(started ? new ResponseBodyError(error, statusCode, headers) : error);
        },
      });
    } catch (error) {
      reject(error);
    }
  });
}
