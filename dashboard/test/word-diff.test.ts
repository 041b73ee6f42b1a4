import { describe, expect, it } from 'vitest';
import { wordDiff } from '../src/pages/evaluations/word-diff.js';

describe('wordDiff (an output against the baseline\'s, in the evaluation compare)', () => {
  it('marks the words removed and inserted, keeping the shared ones and the spaces between', () => {
    expect(wordDiff('The capital is Kyoto', 'The capital is Tokyo')).toEqual([
      { kind: 'same', text: 'The capital is ' },
      { kind: 'removed', text: 'Kyoto' },
      { kind: 'added', text: 'Tokyo' },
    ]);
    expect(wordDiff('Tokyo', 'The capital of Japan is Tokyo')).toEqual([
      { kind: 'added', text: 'The capital of Japan is ' },
      { kind: 'same', text: 'Tokyo' },
    ]);
    expect(wordDiff('a b c d', 'a c d e')).toEqual([
      { kind: 'same', text: 'a ' },
      { kind: 'removed', text: 'b ' },
      { kind: 'same', text: 'c d' },
      { kind: 'added', text: ' e' },
    ]);
  });

  it('answers equal texts as one part, and an empty side as one insertion or removal', () => {
    expect(wordDiff('same text', 'same text')).toEqual([{ kind: 'same', text: 'same text' }]);
    expect(wordDiff('', 'new')).toEqual([{ kind: 'added', text: 'new' }]);
    expect(wordDiff('old', '')).toEqual([{ kind: 'removed', text: 'old' }]);
  });

  it('gives up aligning texts too long for its table: one removal and one insertion, never a frozen page', () => {
    const before = Array.from({ length: 3000 }, (_, index) => `a${index}`).join(' ');
    const after = Array.from({ length: 3000 }, (_, index) => `b${index}`).join(' ');
    const parts = wordDiff(before, after);
    expect(parts.map((part) => part.kind)).toEqual(['removed', 'added']);
    expect(parts[0]!.text).toBe(before);
  });
});
