import { storedKey } from '../../auth';
import type { ExportFormat } from './traces-params';

/**
 * Downloads an export of calls: POST /traces/calls/export with the tab's key in the Authorization header (never in a
 * URL), the streamed answer saved as a file. Resolves once the browser was handed the file; rejects with the
 * server's message when it refused the request.
 */
export async function downloadCalls(body: Record<string, unknown>, format: ExportFormat, fileName: string): Promise<void> {
  const response = await fetch('/traces/calls/export', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${storedKey() ?? ''}` },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(await refusal(response));
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = `${fileName}.${format}`;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The download has its own copy once click() returned; a later tick keeps slow browsers safe.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

/** The tracing family's error body (422 `{detail: [{loc, msg}]}` or `{reason}`) as one sentence. */
async function refusal(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { detail?: { loc?: unknown[]; msg?: string }[] | string; reason?: string };
    if (Array.isArray(body.detail)) return body.detail.map((issue) => `${(issue.loc ?? []).slice(1).join('.')}: ${issue.msg}`).join('; ');
    return String(body.detail ?? body.reason ?? `Export failed (${response.status})`);
  } catch {
    return `Export failed (${response.status})`;
  }
}
