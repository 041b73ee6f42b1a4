/**
 * A word-level diff of two texts (longest common subsequence over words and the whitespace between them), for
 * showing how an output differs from the baseline's. Texts too long for the quadratic table are answered as one
 * removal and one insertion rather than freezing the page.
 */
export interface DiffPart {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/** Beyond this many token pairs (≈ 16 MB of table), the diff gives up on alignment. */
const MAX_CELLS = 4_000_000;

export function tokenize(text: string): string[] {
  return text.match(/\s+|[^\s]+/g) ?? [];
}

export function wordDiff(before: string, after: string): DiffPart[] {
  if (before === after) return before ? [{ kind: 'same', text: before }] : [];
  const a = tokenize(before);
  const b = tokenize(after);
  // Common prefix and suffix need no table.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const parts: DiffPart[] = [];
  const push = (kind: DiffPart['kind'], text: string) => {
    if (!text) return;
    const last = parts[parts.length - 1];
    if (last && last.kind === kind) last.text += text;
    else parts.push({ kind, text });
  };
  push('same', a.slice(0, start).join(''));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if ((midA.length + 1) * (midB.length + 1) > MAX_CELLS) {
    push('removed', midA.join(''));
    push('added', midB.join(''));
  } else {
    for (const part of alignedParts(midA, midB)) push(part.kind, part.text);
  }
  push('same', a.slice(endA).join(''));
  return parts;
}

/** The LCS alignment of two token lists, removals before insertions where both happen at one place. */
function alignedParts(a: string[], b: string[]): DiffPart[] {
  const width = b.length + 1;
  // lengths[i * width + j]: the LCS length of a[i..] and b[j..].
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] = a[i] === b[j] ? lengths[(i + 1) * width + j + 1]! + 1 : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const parts: DiffPart[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      parts.push({ kind: 'same', text: a[i]! });
      i++;
      j++;
    } else if (j >= b.length || (i < a.length && lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!)) {
      parts.push({ kind: 'removed', text: a[i]! });
      i++;
    } else {
      parts.push({ kind: 'added', text: b[j]! });
      j++;
    }
  }
  return parts;
}
