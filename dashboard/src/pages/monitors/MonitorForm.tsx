import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { InlineError } from '../../components/States';
import { MonitorsCreateDocument, type MonitorInput, type MonitorScorerKind } from '../../graphql/generated';

const KINDS: { kind: MonitorScorerKind; label: string }[] = [
  { kind: 'REGEX', label: 'Regex match' },
  { kind: 'JSON_SCHEMA', label: 'Valid against a JSON Schema' },
  { kind: 'LENGTH', label: 'Length within bounds' },
  { kind: 'CONTAINS', label: 'Contains another field' },
  { kind: 'EQUALS', label: 'Equals another field' },
  { kind: 'LLM_JUDGE', label: 'LLM judge' },
];

/**
 * A new monitor: name, which ops, the share sampled and the scorer with the settings its kind needs. The server
 * validates (a pattern RE2 refuses, a JSON Schema that does not compile…) and its answer is shown as it comes.
 */
export function MonitorForm({ entity, project, onCreated }: { entity: string; project: string; onCreated: () => void }) {
  const [created, create] = useMutation(MonitorsCreateDocument);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<MonitorScorerKind>('REGEX');
  const [field, setField] = useState('output');
  const [setting, setSetting] = useState('');
  const [maxLength, setMaxLength] = useState('');
  const [rate, setRate] = useState('1');
  const [ops, setOps] = useState('');

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
      case 'LLM_JUDGE':
        return { kind, prompt: setting };
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
    const outcome = await create({
      entity,
      project,
      input: { name, samplingRate: Number(rate), scorer: scorer(), ...(opNames.length > 0 ? { filter: { opNames } } : {}) },
    });
    if (!outcome.error) {
      setName('');
      setSetting('');
      onCreated();
    }
  };

  return (
    <section className="section card" aria-labelledby="monitor-form-heading">
      <h2 id="monitor-form-heading">New monitor</h2>
      <form className="monitor-form" onSubmit={(event) => void onSubmit(event)} aria-label={`New monitor of ${entity}/${project}`}>
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
        <button type="submit" className="button button-primary" disabled={created.fetching}>
          Create monitor
        </button>
      </form>
      {created.error ? <InlineError error={created.error} /> : null}
    </section>
  );
}
