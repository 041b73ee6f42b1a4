import { describe, expect, it } from 'vitest';
import { parseJudgeAnswer, renderPrompt, unknownPlaceholders } from '../monitor/llm-judge.js';
import type { MonitoredCall } from '../monitor/monitored-call.js';

/** How an LLM judge's prompt is filled from a call and its answer read as a score (pure parts of llm-judge.ts). */
const call: MonitoredCall = {
  project_id: 'team/p',
  id: 'c',
  op_name: 'answer',
  parent_id: null,
  attributes: { expected_answer: 4 },
  inputs: { question: '2+2=', history: [{ role: 'user' }] },
  output: { text: 'four' },
  summary: null,
  exception: null,
};

describe('the prompt', () => {
  it('fills {{field}} placeholders with the call fields as text (objects as JSON, absent as empty)', () => {
    expect(renderPrompt('Q: {{inputs.question}} A: {{ output }} E: {{attributes.expected_answer}} H: {{inputs.history}} X: {{inputs.none}}', call)).toBe(
      'Q: 2+2= A: {"text":"four"} E: 4 H: [{"role":"user"}] X: ',
    );
  });

  it('names the placeholders that are no call field', () => {
    expect(unknownPlaceholders('{{output}} {{answer}} {{inputs.q}} {{op_name}}')).toEqual(['answer', 'op_name']);
  });
});

describe('the answer', () => {
  it('scores the first number, clamped to the scale, with the answer as the reason', () => {
    expect(parseJudgeAnswer(' 7/10, mostly right ', { min: 0, max: 10 })).toEqual({ score: 7, reason: '7/10, mostly right' });
    expect(parseJudgeAnswer('Score: 0.25', { min: 0, max: 1 })).toEqual({ score: 0.25, reason: 'Score: 0.25' });
    expect(parseJudgeAnswer('12', { min: 0, max: 10 })).toEqual({ score: 10, reason: '12' });
    expect(parseJudgeAnswer('-3 points', { min: 0, max: 1 })).toEqual({ score: 0, reason: '-3 points' });
  });

  it('is no score without a number (the call then counts as failed)', () => {
    expect(parseJudgeAnswer('excellent', { min: 0, max: 1 })).toEqual({ failed: 'the judge answered no number: "excellent"' });
  });
});
