import type { TestPlatform } from '../../../test/support/platform.js';

/** POST a JSON body to a /traces route with HTTP Basic `api:<key>` (what the Weave SDK sends). */
export async function traces(platform: TestPlatform, path: string, body: unknown, key = platform.adminKey) {
  const response = await platform.fetch(`/traces${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`api:${key}`).toString('base64')}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, body: json, headers: response.headers };
}

/**
 * The rows of a /calls/stream_query answer as `traces` returns it: JSON lines as text, except that one line alone is
 * valid JSON and arrives parsed (and no line is an empty text).
 */
export function streamedRows(body: unknown): any[] {
  if (typeof body !== 'string') return [body];
  return body.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
}

export const startOf = (projectId: string, fields: Record<string, unknown> = {}) => ({
  start: { project_id: projectId, op_name: 'my_op', started_at: new Date().toISOString(), attributes: {}, inputs: {}, ...fields },
});
