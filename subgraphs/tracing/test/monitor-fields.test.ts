import { describe, expect, it } from 'vitest';
import { compileCheck } from '../monitor/built-in-checks.js';
import { matchesFilter } from '../monitor/call-selection.js';
import { renderPrompt } from '../monitor/llm-judge.js';
import type { MonitorDefinition } from '../monitor/monitor-definition.js';
import { fieldsRead } from '../monitor/monitor-fields.js';
import type { MonitorScorer } from '../monitor/monitor.schemas.js';
import type { MonitoredCall } from '../monitor/monitored-call.js';

/** The consumer reads back only the call fields its monitors read (monitor-fields.ts): what a monitor sees must not change. */
const call: MonitoredCall = {
  project_id: 'team/p',
  id: 'c1',
  op_name: 'weave:///team/p/op/answer:abc',
  parent_id: 'c0',
  attributes: { expected_answer: 'four', env: 'prod' },
  inputs: { question: '2+2=', expected: 'four' },
  output: { text: 'four' },
  summary: { usage: { m: { requests: 1 } } },
  exception: null,
};

function monitor(scorer: MonitorScorer, filter: Partial<MonitorDefinition['filter']> = {}): MonitorDefinition {
  const now = new Date();
  return {
    id: '01900000-0000-7000-8000-000000000001', projectId: 'team/p', name: 'm', samplingRate: 1, scorer, active: true, threshold: null,
    createdBy: 'u', createdAt: now, updatedAt: now, filter: { op_names: [], attributes: {}, roots_only: false, ...filter },
  };
}

/** The call as the consumer reads it for these monitors: its key and the fields they read, nothing else. */
function asRead(monitors: MonitorDefinition[]): MonitoredCall {
  const read: MonitoredCall = { project_id: call.project_id, id: call.id };
  for (const field of fieldsRead(monitors)) (read as unknown as Record<string, unknown>)[field] = call[field];
  return read;
}

const cases: [string, MonitorDefinition][] = [
  ['a regex over the output', monitor({ kind: 'regex', pattern: 'four' })],
  ['a regex over a nested field', monitor({ kind: 'regex', pattern: 'four', field: 'inputs.expected' })],
  ['an equals against another field', monitor({ kind: 'equals', field: 'output.text', other_field: 'attributes.expected_answer' })],
  ['a contains over the summary', monitor({ kind: 'contains', field: 'summary', other_field: 'inputs.question' })],
  ['a length check on the exception', monitor({ kind: 'length', field: 'exception', min_length: 1 })],
  ['a JSON schema check', monitor({ kind: 'json_schema', json_schema: { type: 'object', required: ['text'] } })],
  ['an op and attribute filter', monitor({ kind: 'regex', pattern: 'x' }, { op_names: ['answer'], attributes: { env: 'prod' } })],
  ['a roots-only filter', monitor({ kind: 'regex', pattern: 'x' }, { roots_only: true })],
];

describe('the call fields monitors read', () => {
  it.each(cases)('%s sees the same call read narrowly as whole', (_, definition) => {
    const narrow = asRead([definition]);
    expect(matchesFilter(definition.filter, narrow)).toBe(matchesFilter(definition.filter, call));
    const check = compileCheck(definition.scorer);
    expect(check(narrow)).toEqual(check(call));
  });

  it("a judge's prompt is filled the same from the fields its placeholders name", () => {
    const prompt = 'Q: {{inputs.question}} A: {{ output.text }} E: {{attributes.expected_answer}} S: {{summary}}';
    const judge = monitor({ kind: 'llm_judge', prompt });
    expect(fieldsRead([judge])).toEqual(['attributes', 'inputs', 'output', 'summary']);
    expect(renderPrompt(prompt, asRead([judge]))).toBe(renderPrompt(prompt, call));
  });

  it('reads only what is named: the output for a plain regex, the union for several monitors', () => {
    expect(fieldsRead([monitor({ kind: 'regex', pattern: 'a' })])).toEqual(['output']);
    expect(fieldsRead([monitor({ kind: 'regex', pattern: 'a' }, { roots_only: true }), monitor({ kind: 'equals', field: 'inputs.a', other_field: 'attributes.b' })])).toEqual([
      'parent_id', 'attributes', 'inputs', 'output',
    ]);
  });
});
