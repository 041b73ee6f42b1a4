/**
 * The CSV form of an export of calls (POST /traces/calls/export): one row per call in the Weave wire shape the JSON
 * lines carry, the JSON columns as JSON text. RFC 4180: fields holding a comma, a quote or a line break are quoted,
 * quotes doubled, lines ended with CRLF. A text value that a spreadsheet would run as a formula (it starts with =, +, -,
 * @, a tab or a carriage return: OWASP's CSV-injection list) gets a leading apostrophe: traced inputs and outputs are
 * written by whoever called the model, and an export is opened by someone else. The JSON lines form is the exact data.
 */
export const CSV_COLUMNS = [
  'id',
  'trace_id',
  'parent_id',
  'op_name',
  'display_name',
  'status',
  'started_at',
  'ended_at',
  'latency_ms',
  'exception',
  'wb_user_id',
  'wb_run_id',
  'attributes',
  'inputs',
  'output',
  'summary',
] as const;

export const CSV_HEADER = `${CSV_COLUMNS.join(',')}\r\n`;

/** One call (Weave wire shape, as the JSON lines) as a CSV line. */
export function csvLine(call: Record<string, unknown>): string {
  const summary = isObject(call.summary) ? call.summary : {};
  const weave = isObject(summary.weave) ? summary.weave : {};
  const values: Record<(typeof CSV_COLUMNS)[number], unknown> = {
    id: call.id,
    trace_id: call.trace_id,
    parent_id: call.parent_id,
    op_name: call.op_name,
    display_name: call.display_name,
    status: weave.status,
    started_at: call.started_at,
    ended_at: call.ended_at,
    latency_ms: weave.latency_ms,
    exception: call.exception,
    wb_user_id: call.wb_user_id,
    wb_run_id: call.wb_run_id,
    attributes: call.attributes,
    inputs: call.inputs,
    output: call.output,
    summary: call.summary,
  };
  return `${CSV_COLUMNS.map((column) => csvField(values[column])).join(',')}\r\n`;
}

const FORMULA_START = /^[=+\-@\t\r]/;

function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const raw = value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  const text = typeof value === 'string' && FORMULA_START.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
