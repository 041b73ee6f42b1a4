import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { InlineError } from '../../components/States';
import { MonitorsCreateDocument, MonitorsUpdateDocument, type MonitorInput, type MonitorScorerKind, type MonitorsListQuery } from '../../graphql/generated';

export type Monitor = NonNullable<MonitorsListQuery['project']>['monitors'][number];

const KINDS: { kind: MonitorScorerKind; label: string }[] = [
  { kind: 'REGEX', label: 'Regex match' },
  { kind: 'JSON_SCHEMA', label: 'Valid against a JSON Schema' },
  { kind: 'LENGTH', label: 'Length within bounds' },
  { kind: 'CONTAINS', label: 'Contains another field' },
  { kind: 'EQUALS', label: 'Equals another field' },
  { kind: 'LLM_JUDGE', label: 'LLM judge' },
];

/** The one setting a scorer kind shows in the form, as the monitor has it. */
function settingOf(monitor: Monitor): string {
  const scorer = monitor.scorer;
  switch (scorer.kind) {
    case 'REGEX':
      return scorer.pattern ?? '';
    case 'JSON_SCHEMA':
      return scorer.jsonSchema ? JSON.stringify(scorer.jsonSchema, null, 2) : '';
    case 'LENGTH':
      return scorer.minLength === null || scorer.minLength === undefined ? '' : String(scorer.minLength);
    case 'LLM_JUDGE':
      return scorer.prompt ?? '';
    default:
      return scorer.otherField ?? '';
  }
}

/**
 * A new monitor, or a change to one (`editing`): name, which ops, the share sampled and the scorer with the settings
 * its kind needs. An edit replaces the definition (updateMonitor), so what the form does not show — the attribute
 * filter, roots only, paused or not, the threshold, a judge's model and scale — is sent back as the monitor has it.
 * The server validates (a pattern RE2 refuses, a JSON Schema that does not compile…) and its answer is shown as it comes.
 */
export function MonitorForm({
  entity,
  project,
  editing,
  onSaved,
  onCancel,
}: {
  entity: string;
  project: string;
  editing?: Monitor | null;
  onSaved: () => void;
  onCancel?: () => void;
}) {
  const [created, create] = useMutation(MonitorsCreateDocument);
  const [updated, update] = useMutation(MonitorsUpdateDocument);
  const [name, setName] = useState(editing?.name ?? '');
  const [kind, setKind] = useState<MonitorScorerKind>((editing?.scorer.kind as MonitorScorerKind | undefined) ?? 'REGEX');
  const [field, setField] = useState(editing?.scorer.field ?? 'output');
  const [setting, setSetting] = useState(editing ? settingOf(editing) : '');
  const [maxLength, setMaxLength] = useState(editing?.scorer.maxLength === null || editing?.scorer.maxLength === undefined ? '' : String(editing.scorer.maxLength));
  const [rate, setRate] = useState(editing ? String(editing.samplingRate) : '1');
  const [ops, setOps] = useState(editing?.filter.opNames.join(', ') ?? '');
  const saving = editing ? updated : created;

  const scorer = (): MonitorInput['scorer'] => {
    switch (kind) {
      case 'REGEX':
        return { kind, field, pattern: setting };
      case 'JSON_SCHEMA': {
        let schema: Record<string, unknown> = {};
        try {
          schema = JSON.parse(setting) as Record<string, unknown>;
        } catch {
          // Sent as {}: the server then says what is missing.
        }
        return { kind, field, jsonSchema: schema };
      }
      case 'LENGTH':
        return { kind, field, minLength: setting === '' ? null : Number(setting), maxLength: maxLength === '' ? null : Number(maxLength) };
      case 'LLM_JUDGE': {
        // The judge's model and scale are not in the form: an edit keeps them.
        const kept = editing?.scorer.kind === 'LLM_JUDGE' ? editing.scorer : null;
        return {
          kind,
          prompt: setting,
          ...(kept?.model ? { model: kept.model } : {}),
          ...(kept?.maxTokens ? { maxTokens: kept.maxTokens } : {}),
          ...(kept?.scoreMin !== null && kept?.scoreMin !== undefined ? { scoreMin: kept.scoreMin } : {}),
          ...(kept?.scoreMax !== null && kept?.scoreMax !== undefined ? { scoreMax: kept.scoreMax } : {}),
        };
      }
      default:
        return { kind, field, otherField: setting };
    }
  };
  const settingLabel: Record<MonitorScorerKind, string> = {
    REGEX: 'Pattern (RE2)',
    JSON_SCHEMA: 'JSON Schema',
    LENGTH: 'Least length',
    CONTAINS: 'Other field',
    EQUALS: 'Other field',
    LLM_JUDGE: 'Prompt ({{output}}, {{inputs.x}})',
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const opNames = ops.split(',').map((op) => op.trim()).filter(Boolean);
    if (editing) {
      const input: MonitorInput = {
        name,
        samplingRate: Number(rate),
        scorer: scorer(),
        filter: { opNames, attributes: editing.filter.attributes, rootsOnly: editing.filter.rootsOnly },
        active: editing.active,
        // Copied field by field: the query's objects carry __typename, which an input refuses.
        ...(editing.threshold
          ? { threshold: { below: editing.threshold.below, windowMinutes: editing.threshold.windowMinutes, minSamples: editing.threshold.minSamples } }
          : {}),
      };
      const outcome = await update({ entity, project, id: editing.id, input });
      if (!outcome.error) onSaved();
      return;
    }
    const outcome = await create({
      entity,
      project,
      input: { name, samplingRate: Number(rate), scorer: scorer(), ...(opNames.length > 0 ? { filter: { opNames } } : {}) },
    });
    if (!outcome.error) {
      setName('');
      setSetting('');
      onSaved();
    }
  };

  return (
    <section className="section card" aria-labelledby="monitor-form-heading">
      <h2 id="monitor-form-heading">{editing ? `Edit monitor ${editing.name}` : 'New monitor'}</h2>
      {editing ? <p className="hint">Its scores so far stay; calls from now on are scored with the new definition.</p> : null}
      <form
        className="monitor-form"
        onSubmit={(event) => void onSubmit(event)}
        aria-label={editing ? `Edit monitor ${editing.name}` : `New monitor of ${entity}/${project}`}
      >
        <div className="field">
          <label htmlFor="monitor-name">Name</label>
          <input id="monitor-name" value={name} onChange={(event) => setName(event.target.value)} required />
        </div>
        <div className="field">
          <label htmlFor="monitor-kind">Scorer</label>
          <select id="monitor-kind" value={kind} onChange={(event) => setKind(event.target.value as MonitorScorerKind)}>
            {KINDS.map((option) => (
              <option key={option.kind} value={option.kind}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        {kind !== 'LLM_JUDGE' ? (
          <div className="field">
            <label htmlFor="monitor-field">Field</label>
            <input id="monitor-field" value={field} onChange={(event) => setField(event.target.value)} />
          </div>
        ) : null}
        <div className="field monitor-setting">
          <label htmlFor="monitor-setting">{settingLabel[kind]}</label>
          {kind === 'JSON_SCHEMA' || kind === 'LLM_JUDGE' ? (
            <textarea id="monitor-setting" rows={3} value={setting} onChange={(event) => setSetting(event.target.value)} />
          ) : (
            <input id="monitor-setting" value={setting} onChange={(event) => setSetting(event.target.value)} />
          )}
        </div>
        {kind === 'LENGTH' ? (
          <div className="field">
            <label htmlFor="monitor-max-length">Greatest length</label>
            <input id="monitor-max-length" type="number" min={0} value={maxLength} onChange={(event) => setMaxLength(event.target.value)} />
          </div>
        ) : null}
        <div className="field">
          <label htmlFor="monitor-rate">Sampling rate (0–1]</label>
          <input id="monitor-rate" type="number" step="any" value={rate} onChange={(event) => setRate(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="monitor-ops">Only ops (comma-separated)</label>
          <input id="monitor-ops" value={ops} placeholder="every op" onChange={(event) => setOps(event.target.value)} />
        </div>
        <button type="submit" className="button button-primary" disabled={saving.fetching}>
          {editing ? 'Save changes' : 'Create monitor'}
        </button>
        {editing && onCancel ? (
          <button type="button" className="button button-quiet" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </form>
      {saving.error ? <InlineError error={saving.error} /> : null}
    </section>
  );
}
