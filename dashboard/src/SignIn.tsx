import { useEffect, useRef, useState, type FormEvent } from 'react';

/**
 * The key is typed into a password field and submitted by script only (the form has no action: the key never
 * becomes part of a URL). It is checked against `viewer` before it is kept.
 */
export function SignIn({ onSignIn, error, checking }: { onSignIn: (key: string) => void; error: string | null; checking: boolean }) {
  const [key, setKey] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    document.title = 'Sign in · Trellis';
    input.current?.focus();
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = key.trim();
    if (trimmed) onSignIn(trimmed);
  };
  return (
    <main className="sign-in" id="main">
      <form className="sign-in-card" onSubmit={submit} autoComplete="off" aria-describedby="sign-in-hint">
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true">
            T
          </span>
          Trellis
        </div>
        <h1>Sign in</h1>
        <div className="field">
          <label htmlFor="api-key">API key</label>
          <input
            ref={input}
            id="api-key"
            name="api-key"
            type="password"
            required
            spellCheck={false}
            autoComplete="off"
            value={key}
            onChange={(event) => setKey(event.target.value)}
            aria-invalid={error ? true : undefined}
            aria-errormessage={error ? 'sign-in-error' : undefined}
          />
        </div>
        <p id="sign-in-hint" className="hint">
          Kept in this browser tab only (session storage) and sent as <code>Authorization: Bearer</code>. Create keys with{' '}
          <code>npm run cli -- key create</code> or on the Settings page.
        </p>
        {error ? (
          <p id="sign-in-error" className="inline-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" className="button button-primary" disabled={checking}>
          {checking ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
