import { ConfirmDialog } from '../components/ConfirmDialog';
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { storedKey } from '../auth';
import { DataTable, type Column } from '../components/DataTable';
import { relativeTime, Time } from '../components/Format';
import { PageHeader } from '../components/PageHeader';
import { Empty, InlineError, QueryState } from '../components/States';
import {
  SettingsApiKeysDocument,
  SettingsCreateApiKeyDocument,
  SettingsRemoveTeamMemberDocument,
  SettingsRevokeApiKeyDocument,
  SettingsSetTeamMemberDocument,
  SettingsTeamMembersDocument,
  type SettingsApiKeysQuery,
  type TeamRole,
} from '../graphql/generated';
import { useSession } from '../viewer';
import { TraceRetention } from './settings/TraceRetention';

type ApiKey = NonNullable<SettingsApiKeysQuery['viewer']>['apiKeys'][number];
const ROLES: TeamRole[] = ['ADMIN', 'MEMBER'];

export default function Settings() {
  const { viewer } = useSession();
  return (
    <>
      <PageHeader title="Settings" description={`API keys of ${viewer.username}, how long your projects keep traces, and the members of your teams.`} />
      <ApiKeys />
      <TraceRetention />
      {viewer.teams.length === 0 ? (
        <section className="section card" aria-labelledby="teams-heading">
          <h2 id="teams-heading">Teams</h2>
          <Empty title="You are not a member of any team." />
        </section>
      ) : (
        viewer.teams.map((membership) => <TeamMembers key={membership.team} team={membership.team} role={membership.role} />)
      )}
    </>
  );
}

function ApiKeys() {
  const [result, reexecute] = useQuery({ query: SettingsApiKeysDocument });
  const [created, createKey] = useMutation(SettingsCreateApiKeyDocument);
  const [revoked, revokeKey] = useMutation(SettingsRevokeApiKeyDocument);
  const [name, setName] = useState('');
  const [newKey, setNewKey] = useState<{ name: string; key: string } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const current = storedKey();

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return;
    const outcome = await createKey({ name: trimmed });
    if (outcome.data) {
      setNewKey({ name: outcome.data.createApiKey.apiKey.name, key: outcome.data.createApiKey.key });
      setName('');
      reexecute({ requestPolicy: 'network-only' });
    }
  };
  const revoke = async (key: ApiKey) => {
    const outcome = await revokeKey({ id: key.id });
    setConfirming(null);
    if (!outcome.error) reexecute({ requestPolicy: 'network-only' });
  };

  const columns: Column<ApiKey>[] = [
    {
      key: 'name',
      header: 'Name',
      sortValue: (key) => key.name,
      render: (key) => (
        <>
          {key.name}
          {current && !key.revokedAt && current.startsWith(key.prefix) ? <span className="badge">this session</span> : null}
        </>
      ),
    },
    { key: 'prefix', header: 'Starts with', render: (key) => <code>{key.prefix}…</code> },
    { key: 'created', header: 'Created', sortValue: (key) => key.createdAt, render: (key) => <Time value={key.createdAt} /> },
    { key: 'used', header: 'Last used', sortValue: (key) => key.lastUsedAt, render: (key) => (key.lastUsedAt ? <span title={key.lastUsedAt}>{relativeTime(key.lastUsedAt)}</span> : <span className="muted">never</span>) },
    {
      key: 'status',
      header: 'Status',
      sortValue: (key) => (key.revokedAt ? 1 : 0),
      render: (key) => (key.revokedAt ? <span className="status status-neutral">revoked {relativeTime(key.revokedAt)}</span> : <span className="status status-ok">active</span>),
    },
    {
      key: 'actions',
      header: 'Actions',
      render: (key) =>
        key.revokedAt ? null : confirming === key.id ? (
          <span className="row-actions">
            <button type="button" className="button button-danger" onClick={() => void revoke(key)} disabled={revoked.fetching}>
              Confirm revoke “{key.name}”
            </button>
            <button type="button" className="button button-quiet" onClick={() => setConfirming(null)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" className="button" onClick={() => setConfirming(key.id)} aria-label={`Revoke key ${key.name}`}>
            Revoke
          </button>
        ),
    },
  ];

  return (
    <section className="section card" aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p className="hint">
        Keys authenticate the SDKs, the CLI and this dashboard. Only a hash is stored: a new key is shown once, here, right after you create it.
      </p>
      <form className="filters" onSubmit={(event) => void create(event)} aria-label="Create an API key">
        <div className="field">
          <label htmlFor="new-key-name">New key name</label>
          <input id="new-key-name" value={name} onChange={(event) => setName(event.target.value)} placeholder="e.g. laptop" required maxLength={100} />
        </div>
        <button type="submit" className="button button-primary" disabled={created.fetching}>
          Create key
        </button>
      </form>
      {created.error ? <InlineError error={created.error} /> : null}
      {newKey ? (
        <div className="notice new-key" role="status" data-testid="new-key">
          <p>
            Key <strong>{newKey.name}</strong> created. Copy it now: it will not be shown again.
          </p>
          <div className="key-row">
            <input className="key-value" readOnly value={newKey.key} aria-label={`The new key ${newKey.name}`} onFocus={(event) => event.currentTarget.select()} />
            <button type="button" className="button" onClick={() => void navigator.clipboard?.writeText(newKey.key)}>
              Copy
            </button>
            <button type="button" className="button button-quiet" onClick={() => setNewKey(null)}>
              Done
            </button>
          </div>
        </div>
      ) : null}
      {revoked.error ? <InlineError error={revoked.error} /> : null}
      <QueryState result={result} loadingLabel="Loading your keys…">
        {(data) =>
          data.viewer ? (
            <DataTable
              caption="Your API keys"
              columns={columns}
              rows={[...data.viewer.apiKeys].sort((a, b) => Number(Boolean(a.revokedAt)) - Number(Boolean(b.revokedAt)) || b.createdAt.localeCompare(a.createdAt))}
              rowKey={(key) => key.id}
              empty="No keys."
            />
          ) : (
            <Empty title="Not signed in." />
          )
        }
      </QueryState>
    </section>
  );
}

function TeamMembers({ team, role }: { team: string; role: TeamRole }) {
  const { viewer } = useSession();
  const canManage = role === 'ADMIN' || viewer.isAdmin;
  const [result, reexecute] = useQuery({ query: SettingsTeamMembersDocument, variables: { team } });
  const [setState, setMember] = useMutation(SettingsSetTeamMemberDocument);
  const [removeState, removeMember] = useMutation(SettingsRemoveTeamMemberDocument);
  const [username, setUsername] = useState('');
  const [newRole, setNewRole] = useState<TeamRole>('MEMBER');
  /** The member whose removal waits for confirmation. */
  const [removing, setRemoving] = useState<string | null>(null);
  const refresh = () => reexecute({ requestPolicy: 'network-only' });
  const confirmRemoval = async () => {
    if (!removing) return;
    const outcome = await removeMember({ team, username: removing });
    setRemoving(null);
    if (!outcome.error) refresh();
  };
  const headingId = `team-members-${team}`;

  const add = async (event: FormEvent) => {
    event.preventDefault();
    const outcome = await setMember({ team, username: username.trim(), role: newRole });
    if (!outcome.error) {
      setUsername('');
      refresh();
    }
  };

  type Member = { username: string; role: TeamRole };
  const columns: Column<Member>[] = [
    {
      key: 'username',
      header: 'User',
      sortValue: (member) => member.username,
      render: (member) => (
        <>
          {member.username}
          {member.username === viewer.username ? <span className="badge">you</span> : null}
        </>
      ),
    },
    {
      key: 'role',
      header: 'Role',
      sortValue: (member) => member.role,
      render: (member) =>
        canManage ? (
          <select
            aria-label={`Role of ${member.username} in ${team}`}
            value={member.role}
            disabled={setState.fetching}
            onChange={(event) => void setMember({ team, username: member.username, role: event.target.value as TeamRole }).then(refresh)}
          >
            {ROLES.map((value) => (
              <option key={value} value={value}>
                {value.toLowerCase()}
              </option>
            ))}
          </select>
        ) : (
          member.role.toLowerCase()
        ),
    },
    ...(canManage
      ? [
          {
            key: 'actions',
            header: 'Actions',
            render: (member: Member) => (
              <button
                type="button"
                className="button button-danger"
                aria-label={`Remove ${member.username} from ${team}`}
                disabled={removeState.fetching}
                onClick={() => setRemoving(member.username)}
              >
                Remove
              </button>
            ),
          },
        ]
      : []),
  ];

  return (
    <section className="section card" aria-labelledby={headingId} data-team={team}>
      <div className="card-header">
        <h2 id={headingId}>
          Members of <span className="mono">{team}</span>
        </h2>
        <span className="badge">you: {role.toLowerCase()}</span>
      </div>
      {canManage ? (
        <form className="filters" onSubmit={(event) => void add(event)} aria-label={`Add a member to ${team}`}>
          <div className="field">
            <label htmlFor={`${headingId}-username`}>Username</label>
            <input id={`${headingId}-username`} value={username} onChange={(event) => setUsername(event.target.value)} required />
          </div>
          <div className="field">
            <label htmlFor={`${headingId}-role`}>Role</label>
            <select id={`${headingId}-role`} value={newRole} onChange={(event) => setNewRole(event.target.value as TeamRole)}>
              {ROLES.map((value) => (
                <option key={value} value={value}>
                  {value.toLowerCase()}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button button-primary" disabled={setState.fetching}>
            Add member
          </button>
        </form>
      ) : (
        <p className="hint" data-testid="members-read-only">
          Only admins of {team} can add or remove members and change roles; you are a {role.toLowerCase()}.
        </p>
      )}
      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing ?? ''} from ${team}?`}
        confirmLabel="Yes, remove"
        cancelLabel="Keep them"
        danger
        busy={removeState.fetching}
        onConfirm={() => void confirmRemoval()}
        onClose={() => setRemoving(null)}
      >
        {removing === viewer.username
          ? `You lose access to ${team}'s projects at once, in every tab and client using your keys.`
          : `${removing ?? ''} loses access to ${team}'s projects at once, with every key they hold.`}
      </ConfirmDialog>
      {setState.error ? <InlineError error={setState.error} /> : null}
      {removeState.error ? <InlineError error={removeState.error} /> : null}
      <QueryState result={result} loadingLabel="Loading members…">
        {(data) =>
          data.team ? (
            <DataTable caption={`Members of ${team}`} columns={columns} rows={data.team.members} rowKey={(member) => member.username} />
          ) : (
            <Empty title={`Team ${team} is not visible to you.`} />
          )
        }
      </QueryState>
    </section>
  );
}
