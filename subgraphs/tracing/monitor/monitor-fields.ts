import { placeholderPaths } from './llm-judge.js';
import type { MonitorDefinition } from './monitor-definition.js';
import { MONITORED_CALL_FIELDS, type MonitoredCallField } from './monitored-call.js';

const isCallField = (name: string): name is MonitoredCallField => (MONITORED_CALL_FIELDS as readonly string[]).includes(name);

/** The call field a dotted path (`inputs.expected`, `output.choices.0`) starts at, when it is one. */
function fieldOfPath(path: string): MonitoredCallField | undefined {
  const head = path.split('.')[0]!;
  return isCallField(head) ? head : undefined;
}

/**
 * The call fields these monitors read: their filters' (op, root or not, attributes) and their scorers' (a check's
 * field and other field, a judge's placeholders). Reading a batch's calls back costs PostgreSQL a quarter of what
 * ingesting them did when every field was read (inputs, attributes and summary are JSON the process then parses),
 * and a typical check reads the output alone.
 */
export function fieldsRead(monitors: readonly MonitorDefinition[]): MonitoredCallField[] {
  const fields = new Set<MonitoredCallField>();
  const add = (path: string | null | undefined) => {
    const field = path ? fieldOfPath(path) : undefined;
    if (field) fields.add(field);
  };
  for (const monitor of monitors) {
    if (monitor.filter.op_names.length > 0) fields.add('op_name');
    if (monitor.filter.roots_only) fields.add('parent_id');
    if (Object.keys(monitor.filter.attributes).length > 0) fields.add('attributes');
    if (monitor.scorer.kind === 'llm_judge') for (const path of placeholderPaths(monitor.scorer.prompt ?? '')) add(path);
    else {
      add(monitor.scorer.field ?? 'output');
      add(monitor.scorer.other_field);
    }
  }
  return MONITORED_CALL_FIELDS.filter((field) => fields.has(field));
}
