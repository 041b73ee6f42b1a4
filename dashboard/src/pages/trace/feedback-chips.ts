/** A call's feedback records grouped for chips: reactions by emoji, notes, and everything else (scores, annotations). */

export interface FeedbackRecord {
  id: string;
  feedbackType: string;
  payload: unknown;
  creator?: string | null;
  wbUserId?: string | null;
}

export const REACTION_TYPE = 'wandb.reaction.1';
export const NOTE_TYPE = 'wandb.note.1';
/** The reactions offered by the picker (Weave's UI offers a similar short list). */
export const REACTION_CHOICES = ['👍', '👎', '🎉', '❤️', '👀', '🤔'] as const;

export interface ReactionGroup {
  emoji: string;
  count: number;
  /** The viewer's own record of this reaction, which a click on the chip removes. */
  mine: FeedbackRecord | null;
}

export interface FeedbackChipsModel {
  reactions: ReactionGroup[];
  notes: { record: FeedbackRecord; text: string; mine: boolean }[];
  others: { record: FeedbackRecord; label: string; value: string }[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `wandb.runnable.Correctness` → Correctness, `wandb.annotation.quality` → quality; other types as they are. */
export function feedbackLabel(feedbackType: string): string {
  const match = /^wandb\.(?:runnable|annotation)\.(.+)$/.exec(feedbackType);
  return match ? match[1]! : feedbackType;
}

/** A short text for a score or annotation payload: its `output` (or `value`), scalars shown as they are. */
export function feedbackValue(payload: unknown): string {
  const value = isObject(payload) && ('output' in payload || 'value' in payload) ? (payload.output ?? payload.value) : payload;
  const scalar = (item: unknown) => (typeof item === 'number' ? String(Math.round(item * 1000) / 1000) : typeof item === 'string' ? item : JSON.stringify(item));
  const text = isObject(value)
    ? Object.entries(value)
        .filter(([key]) => key !== '__typename')
        .map(([key, item]) => `${key}: ${scalar(item)}`)
        .join(', ')
    : scalar(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

export function feedbackChips(records: readonly FeedbackRecord[], viewerId: string): FeedbackChipsModel {
  const reactions = new Map<string, ReactionGroup>();
  const model: FeedbackChipsModel = { reactions: [], notes: [], others: [] };
  for (const record of records) {
    const payload = isObject(record.payload) ? record.payload : {};
    if (record.feedbackType === REACTION_TYPE && typeof payload.emoji === 'string') {
      const group = reactions.get(payload.emoji) ?? { emoji: payload.emoji, count: 0, mine: null };
      group.count += 1;
      if (record.wbUserId === viewerId && !group.mine) group.mine = record;
      reactions.set(payload.emoji, group);
    } else if (record.feedbackType === NOTE_TYPE && typeof payload.note === 'string') {
      model.notes.push({ record, text: payload.note, mine: record.wbUserId === viewerId });
    } else {
      model.others.push({ record, label: feedbackLabel(record.feedbackType), value: feedbackValue(record.payload) });
    }
  }
  model.reactions = [...reactions.values()];
  return model;
}
