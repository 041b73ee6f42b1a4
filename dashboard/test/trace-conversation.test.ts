import { describe, expect, it } from 'vitest';
import { formatCost } from '../src/components/Cost.js';
import { conversationOf } from '../src/pages/trace/chat-messages.js';
import { feedbackChips, feedbackValue } from '../src/pages/trace/feedback-chips.js';
import { playgroundDraftOf } from '../src/pages/trace/playground-draft-of.js';

describe('conversationOf (the trace view’s chat rendering)', () => {
  it('reads OpenAI chat completions: messages, tool calls, tool messages and choices', () => {
    const conversation = conversationOf(
      {
        model: 'gpt-4o',
        temperature: 0.2,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'Weather?' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }] },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'rain' },
        ],
      },
      { choices: [{ index: 0, message: { role: 'assistant', content: 'It rains.' }, finish_reason: 'stop' }] },
    )!;
    expect(conversation.input.map((turn) => turn.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(conversation.input[1]!.parts).toEqual([{ kind: 'text', text: 'Weather?' }, { kind: 'image', source: 'https://x/y.png' }]);
    expect(conversation.input[2]!.parts).toEqual([{ kind: 'tool_call', id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }]);
    expect(conversation.input[3]!.parts).toEqual([{ kind: 'tool_result', toolCallId: 'c1', text: 'rain' }]);
    expect(conversation.output).toEqual([{ role: 'assistant', name: null, parts: [{ kind: 'text', text: 'It rains.' }] }]);
    expect(conversation).toMatchObject({ model: 'gpt-4o', parameters: { temperature: 0.2 } });
  });

  it('reads Anthropic messages: system apart, tool_use and tool_result blocks, the Message output', () => {
    const conversation = conversationOf(
      {
        model: 'claude-3-5-sonnet-latest',
        system: [{ type: 'text', text: 'Be brief.' }],
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'weather', input: { city: 'Oslo' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'rain' }] }] },
        ],
      },
      { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'It rains.' }] },
    )!;
    expect(conversation.input.map((turn) => turn.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(conversation.input[0]!.parts).toEqual([{ kind: 'text', text: 'Be brief.' }]);
    expect(conversation.input[2]!.parts[0]).toMatchObject({ kind: 'tool_call', name: 'weather', arguments: JSON.stringify({ city: 'Oslo' }, null, 2) });
    expect(conversation.input[3]!.parts).toEqual([{ kind: 'tool_result', toolCallId: 't1', text: 'rain' }]);
    expect(conversation.output[0]!.parts).toEqual([{ kind: 'text', text: 'It rains.' }]);
  });

  it('reads plain {role, content} messages under any one input, and is null for calls that are not chats', () => {
    const plain = conversationOf({ history: [{ role: 'user', content: 'hi' }] }, { role: 'assistant', content: 'hello' })!;
    expect(plain.input).toEqual([{ role: 'user', name: null, parts: [{ kind: 'text', text: 'hi' }] }]);
    expect(plain.output).toEqual([{ role: 'assistant', name: null, parts: [{ kind: 'text', text: 'hello' }] }]);
    expect(conversationOf({ a: 1, b: 2 }, 3)).toBeNull();
    expect(conversationOf({ messages: [] }, null)).toBeNull();
    expect(conversationOf(null, null)).toBeNull();
    // A running chat call: no answer yet.
    expect(conversationOf({ messages: [{ role: 'user', content: 'hi' }] }, null)!.output).toEqual([]);
  });
});

describe('playgroundDraftOf (Open in playground)', () => {
  it('hands the messages over in the graph’s shape, the system prompt apart, Anthropic tool results as tool messages', () => {
    const conversation = conversationOf(
      {
        model: 'claude-3-5-sonnet-latest',
        system: 'Be brief.',
        max_tokens: 64,
        temperature: 0.5,
        stop_sequences: ['END'],
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'weather', input: { city: 'Oslo' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'rain' }] },
        ],
      },
      null,
    )!;
    expect(playgroundDraftOf(conversation)).toEqual({
      model: 'claude-3-5-sonnet-latest',
      system: 'Be brief.',
      messages: [
        { role: 'USER', content: 'Weather?', name: null, toolCalls: null },
        { role: 'ASSISTANT', content: null, name: null, toolCalls: [{ id: 't1', type: 'function', function: { name: 'weather', arguments: JSON.stringify({ city: 'Oslo' }, null, 2) } }] },
        { role: 'TOOL', content: 'rain', toolCallId: 't1' },
      ],
      parameters: { maxTokens: 64, temperature: 0.5, stop: 'END' },
    });
  });
});

describe('feedback chips', () => {
  it('groups reactions by emoji with the viewer’s own, keeps notes apart and shows scores as name: value', () => {
    const chips = feedbackChips(
      [
        { id: '1', feedbackType: 'wandb.reaction.1', payload: { emoji: '👍' }, wbUserId: 'me' },
        { id: '2', feedbackType: 'wandb.reaction.1', payload: { emoji: '👍' }, wbUserId: 'you' },
        { id: '3', feedbackType: 'wandb.note.1', payload: { note: 'ok' }, wbUserId: 'you' },
        { id: '4', feedbackType: 'wandb.runnable.Judge', payload: { output: { score: 0.83333, __typename: 'x' } } },
      ],
      'me',
    );
    expect(chips.reactions).toEqual([{ emoji: '👍', count: 2, mine: expect.objectContaining({ id: '1' }) }]);
    expect(chips.notes).toEqual([{ record: expect.objectContaining({ id: '3' }), text: 'ok', mine: false }]);
    expect(chips.others).toEqual([{ record: expect.objectContaining({ id: '4' }), label: 'Judge', value: 'score: 0.833' }]);
    expect(feedbackValue({ output: true })).toBe('true');
  });
});

describe('formatCost', () => {
  it('keeps small costs readable and unknown ones as —', () => {
    expect(formatCost(null)).toBe('—');
    expect(formatCost(0)).toBe('$0.00');
    expect(formatCost(0.0114)).toBe('$0.0114');
    expect(formatCost(0.006)).toBe('$0.006');
    expect(formatCost(0.000105)).toBe('$0.000105');
    expect(formatCost(12.345)).toBe('$12.35');
  });
});
