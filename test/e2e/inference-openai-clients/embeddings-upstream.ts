import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible embeddings server on loopback (POST /v1/embeddings only): vectors derived from each input's
 * length, truncated to `dimensions`, base64 when asked, with usage; it records what it received. Anything else is
 * OpenAI's 404.
 */
export interface EmbeddingsUpstream {
  baseUrl: string;
  requests: { body: Record<string, any>; authorization: string | undefined }[];
  close(): Promise<void>;
}

export const UPSTREAM_DIMENSIONS = 8;

export function upstreamVector(text: string, dimensions = UPSTREAM_DIMENSIONS): number[] {
  return Array.from({ length: dimensions }, (_, index) => (text.length + index) / 100);
}

export async function startEmbeddingsUpstream(): Promise<EmbeddingsUpstream> {
  const requests: EmbeddingsUpstream['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404).end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, any>;
      requests.push({ body, authorization: req.headers.authorization });
      const inputs: string[] = typeof body.input === 'string' ? [body.input] : body.input;
      const data = inputs.map((text, index) => {
        const vector = upstreamVector(text, body.dimensions ?? UPSTREAM_DIMENSIONS);
        const embedding = body.encoding_format === 'base64' ? Buffer.from(Float32Array.from(vector).buffer).toString('base64') : vector;
        return { object: 'embedding', index, embedding };
      });
      const tokens = inputs.reduce((sum, text) => sum + text.split(' ').length, 0);
      res.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
