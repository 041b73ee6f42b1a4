import { useMemo } from 'react';
import { asText } from './scores';
import { wordDiff, type DiffPart } from './word-diff';

/** How much of an output a cell shows; the rest is cut with an ellipsis (the call has it all). */
const MAX_SHOWN = 1_200;

/**
 * A run's output as text; given the baseline's output, the words it removed are struck through and the words it
 * added are marked (`<del>`/`<ins>`, which screen readers announce as deletions and insertions).
 */
export function OutputDiff({ output, baseline }: { output: unknown; baseline?: unknown }) {
  const text = asText(output);
  const parts = useMemo((): DiffPart[] => (baseline === undefined ? [{ kind: 'same', text }] : wordDiff(asText(baseline), text)), [text, baseline]);
  if (!text && baseline === undefined) return <span className="muted">—</span>;
  let budget = MAX_SHOWN;
  const shown: DiffPart[] = [];
  for (const part of parts) {
    if (budget <= 0) break;
    shown.push(part.text.length > budget ? { ...part, text: `${part.text.slice(0, budget)}…` } : part);
    budget -= part.text.length;
  }
  return (
    <>
      {shown.map((part, index) =>
        part.kind === 'added' ? (
          <ins key={index} className="eval-diff-added">
            {part.text}
          </ins>
        ) : part.kind === 'removed' ? (
          <del key={index} className="eval-diff-removed">
            {part.text}
          </del>
        ) : (
          <span key={index}>{part.text}</span>
        ),
      )}
    </>
  );
}
