import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { FieldError, formErrors, invalidProps, NO_ERRORS, type FormErrors } from '../../components/FieldErrors';
import { relativeTime } from '../../components/Format';
import { Empty, InlineError, QueryState } from '../../components/States';
import { AutomationCreateSecretDocument, AutomationDeleteSecretDocument, AutomationSecretsDocument } from '../../graphql/generated';

const CONTEXT = { additionalTypenames: ['TeamSecret'] };

/** Team secrets: names only. The value field is a password input, cleared after saving and never read back. */
export function SecretsSection({ team }: { team: string }) {
  const [result, refetch] = useQuery({ query: AutomationSecretsDocument, variables: { team }, context: CONTEXT });
  const [created, createSecret] = useMutation(AutomationCreateSecretDocument);
  const [deleted, deleteSecret] = useMutation(AutomationDeleteSecretDocument);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [notice, setNotice] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    const response = await createSecret({ team, name: name.trim(), value });
    // The value leaves the page's state either way: it is never shown again.
    setValue('');
    if (response.error) {
      setErrors(formErrors(response.error, ['name', 'value', 'team'], ''));
      return;
    }
    setErrors(NO_ERRORS);
    setNotice(`Secret ${response.data?.createSecret.name ?? name} stored. Its value cannot be read back.`);
    setName('');
    refetch({ requestPolicy: 'network-only' });
  };

  const remove = async (secret: string) => {
    setNotice(null);
    const response = await deleteSecret({ team, name: secret });
    if (!response.error) {
      setNotice(`Secret ${secret} deleted.`);
      refetch({ requestPolicy: 'network-only' });
    }
  };

  return (
    <section className="card section" aria-labelledby="secrets-heading" data-testid="secrets">
      <h2 id="secrets-heading">Team secrets</h2>
      <p className="hint">
        Credentials webhooks send (access token, signing key) and payloads use as <code>{'${NAME}'}</code>. Values are write-only.
      </p>
      <QueryState result={result} loadingLabel="Loading secrets…">
        {(data) =>
          data.secrets.length === 0 ? (
            <Empty title="No secrets yet." />
          ) : (
            <ul className="plain-list">
              {data.secrets.map((secret) => (
                <li key={secret.name} className="plain-row">
                  <code className="secret-name">{secret.name}</code>
                  <span className="muted small" title={secret.updatedAt}>
                    set {relativeTime(secret.updatedAt)}
                  </span>
                  <button type="button" className="button button-danger button-small" onClick={() => void remove(secret.name)} aria-label={`Delete secret ${secret.name}`}>
                    Delete
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </QueryState>
      {deleted.error ? <InlineError error={deleted.error} /> : null}
      <form className="inline-form" onSubmit={(event) => void submit(event)} aria-label="New secret">
        <div className="field">
          <label htmlFor="secret-name">Secret name</label>
          <input id="secret-name" value={name} onChange={(event) => setName(event.target.value)} placeholder="e.g. CI_TOKEN" autoComplete="off" spellCheck={false} {...invalidProps('secret-name', errors.byField.name)} />
          <FieldError id="secret-name" messages={errors.byField.name} />
        </div>
        <div className="field">
          <label htmlFor="secret-value">Value</label>
          <input id="secret-value" type="password" value={value} onChange={(event) => setValue(event.target.value)} autoComplete="new-password" {...invalidProps('secret-value', errors.byField.value)} />
          <FieldError id="secret-value" messages={errors.byField.value} />
        </div>
        <button type="submit" className="button button-primary" disabled={created.fetching || !name.trim() || !value}>
          Add secret
        </button>
      </form>
      {errors.general.length ? <InlineError error={created.error} /> : null}
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
    </section>
  );
}
