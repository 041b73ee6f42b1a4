import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { FieldError, formErrors, invalidProps, NO_ERRORS, type FormErrors } from '../../components/FieldErrors';
import { ErrorState } from '../../components/States';
import { TraceCreateFeedbackDocument, TraceDeleteFeedbackDocument } from '../../graphql/generated';
import { useSession } from '../../viewer';
import { feedbackChips, NOTE_TYPE, REACTION_CHOICES, REACTION_TYPE, type FeedbackRecord } from './feedback-chips';

/**
 * A call's feedback as chips: reactions by emoji (a click on one the viewer gave takes it back, on another adds the
 * viewer's), notes, and scores or annotations as `name: value`. Adding and removing go through the graph's
 * createFeedback / deleteFeedback; `onChanged` re-reads the call.
 */
export function FeedbackChips({ entity, project, callId, records, onChanged }: { entity: string; project: string; callId: string; records: readonly FeedbackRecord[]; onChanged(): void }) {
  const { viewer } = useSession();
  const [created, create] = useMutation(TraceCreateFeedbackDocument);
  const [deleted, remove] = useMutation(TraceDeleteFeedbackDocument);
  const [picking, setPicking] = useState(false);
  const [note, setNote] = useState('');
  const [noteErrors, setNoteErrors] = useState<FormErrors>(NO_ERRORS);
  const projectId = `${entity}/${project}`;
  const weaveRef = `weave:///${entity}/${project}/call/${callId}`;
  const chips = feedbackChips(records, viewer.id);
  const busy = created.fetching || deleted.fetching;

  const add = async (feedbackType: string, payload: Record<string, unknown>) => {
    const result = await create({ input: { projectId, weaveRef, feedbackType, payload } });
    if (!result.error) onChanged();
    return result;
  };
  const drop = async (id: string) => {
    const result = await remove({ projectId, id });
    if (!result.error) onChanged();
  };
  const react = async (emoji: string, mine: FeedbackRecord | null) => {
    setPicking(false);
    if (mine) await drop(mine.id);
    else await add(REACTION_TYPE, { emoji });
  };
  const submitNote = async (event: FormEvent) => {
    event.preventDefault();
    const result = await add(NOTE_TYPE, { note });
    setNoteErrors(result.error ? formErrors(result.error, ['payload']) : NO_ERRORS);
    if (!result.error) setNote('');
  };

  const mutationError = deleted.error ?? (created.error && noteErrors.general.length === 0 && !noteErrors.byField.payload ? created.error : undefined);
  return (
    <section className="detail-section feedback-chips" aria-labelledby="feedback-heading" data-testid="feedback-chips">
      <h3 id="feedback-heading">Feedback</h3>
      <ul className="chip-list" aria-label="Reactions">
        {chips.reactions.map((group) => (
          <li key={group.emoji}>
            <button
              type="button"
              className={`chip chip-reaction${group.mine ? ' chip-mine' : ''}`}
              aria-pressed={group.mine !== null}
              aria-label={`${group.emoji} ${group.count}${group.mine ? ', yours: remove' : ': add yours'}`}
              disabled={busy}
              onClick={() => void react(group.emoji, group.mine)}
            >
              <span aria-hidden="true">{group.emoji}</span> {group.count}
            </button>
          </li>
        ))}
        <li>
          <button type="button" className="chip chip-add" aria-expanded={picking} aria-controls="reaction-picker" disabled={busy} onClick={() => setPicking(!picking)}>
            + React
          </button>
        </li>
      </ul>
      {picking ? (
        <div id="reaction-picker" className="reaction-picker" role="group" aria-label="Choose a reaction">
          {REACTION_CHOICES.map((emoji) => {
            const mine = chips.reactions.find((group) => group.emoji === emoji)?.mine ?? null;
            return (
              <button key={emoji} type="button" className="chip" aria-label={`React ${emoji}`} disabled={busy || mine !== null} onClick={() => void react(emoji, null)}>
                {emoji}
              </button>
            );
          })}
        </div>
      ) : null}
      {chips.notes.length > 0 ? (
        <ul className="chip-list chip-notes" aria-label="Notes">
          {chips.notes.map(({ record, text, mine }) => (
            <li key={record.id} className="chip chip-note">
              <span className="chip-note-text" title={text}>
                📝 {text}
              </span>
              {record.creator ? <span className="muted"> · {record.creator}</span> : null}
              {mine ? (
                <button type="button" className="chip-remove" aria-label={`Remove note “${text}”`} disabled={busy} onClick={() => void drop(record.id)}>
                  ×
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {chips.others.length > 0 ? (
        <ul className="chip-list" aria-label="Scores and annotations">
          {chips.others.map(({ record, label, value }) => (
            <li key={record.id} className="chip chip-score" title={`${record.feedbackType}: ${value}`}>
              <span className="chip-score-label">{label}</span> {value}
            </li>
          ))}
        </ul>
      ) : null}
      <form className="note-form" onSubmit={(event) => void submitNote(event)}>
        <label htmlFor="feedback-note">Add a note</label>
        <div className="note-form-row">
          <input id="feedback-note" value={note} onChange={(event) => setNote(event.target.value)} maxLength={2000} {...invalidProps('feedback-note', noteErrors.byField.payload)} />
          <button type="submit" className="button" disabled={busy || note.trim() === ''}>
            Add note
          </button>
        </div>
        <FieldError id="feedback-note" messages={noteErrors.byField.payload} />
      </form>
      {mutationError ? <ErrorState error={mutationError} title="The feedback could not be saved" /> : null}
      {noteErrors.general.length > 0 ? <ErrorState error={created.error} title="The note could not be saved" /> : null}
    </section>
  );
}
