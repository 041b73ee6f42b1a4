import { useState } from 'react';
import { PageHeader } from '../components/PageHeader';
import { Empty } from '../components/States';
import { useSearchParams } from '../router';
import type { AutomationFieldsFragment } from '../graphql/generated';
import type { PageProps } from '../routes';
import { useSession } from '../viewer';
import { AutomationForm } from './automations/AutomationForm';
import { AutomationList } from './automations/AutomationList';
import { DeliveryLog } from './automations/Deliveries';
import { SecretsSection } from './automations/Secrets';
import { WebhooksSection } from './automations/Webhooks';
import './automations/automations.css';

/**
 * Automations of a team: its secrets (names only), webhooks (with a test POST), automations (create, pause,
 * resume, delete) and the delivery log with attempts and Redeliver, live over the `deliveryUpdates` subscription.
 * The team is `?team=` (default: the viewer's first team).
 */
export default function Automations(_props: PageProps) {
  const { viewer } = useSession();
  const [search, setSearch] = useSearchParams();
  const team = search.get('team') ?? defaultTeam(viewer);
  const automationId = search.get('automation');
  // The form: closed, a new automation, or one being edited.
  const [editing, setEditing] = useState<'new' | AutomationFieldsFragment | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const role = viewer.teams.find((membership) => membership.team === team)?.role;
  const canAdmin = viewer.isAdmin || role === 'ADMIN';

  const picker = (
    <div className="field field-inline">
      <label htmlFor="automation-team">Team</label>
      <select id="automation-team" value={team ?? ''} onChange={(event) => setSearch({ team: event.target.value }, { push: true })}>
        {viewer.teams.map((membership) => (
          <option key={membership.team} value={membership.team}>
            {membership.team}
          </option>
        ))}
        {team && !viewer.teams.some((membership) => membership.team === team) ? <option value={team}>{team}</option> : null}
      </select>
    </div>
  );
  const header = <PageHeader title="Automations" description="Call a webhook when an artifact, alias, tag or run changes; every delivery is logged." actions={team ? picker : null} />;

  if (!team) {
    return (
      <>
        {header}
        <Empty title="You are not a member of any team yet.">Automations belong to a team; ask a team admin to add you.</Empty>
      </>
    );
  }

  return (
    <div key={team}>
      {header}
      {!canAdmin ? (
        <p className="notice notice-info" role="note">
          You are a member of <strong>{team}</strong>, not an admin: secrets, webhooks and deliveries are for team admins, so the server may refuse parts of this page.
        </p>
      ) : null}
      <div className="automation-columns">
        <SecretsSection team={team} />
        <WebhooksSection team={team} canAdmin={canAdmin} />
      </div>

      <section className="card section" aria-labelledby="automations-heading" data-testid="automations">
        <div className="card-header">
          <h2 id="automations-heading">Automations</h2>
          {editing ? null : (
            <button
              type="button"
              className="button button-primary button-small"
              onClick={() => {
                setEditing('new');
                setNotice(null);
              }}
            >
              New automation
            </button>
          )}
        </div>
        {notice ? (
          <p className="notice" role="status">
            {notice}
          </p>
        ) : null}
        <AutomationList
          team={team}
          selected={automationId}
          onShowDeliveries={(automation) => {
            setSearch({ team, automation: automation.id });
            document.getElementById('deliveries-heading')?.scrollIntoView({ block: 'start' });
          }}
          onEdit={(automation) => {
            setEditing(automation);
            setNotice(null);
            requestAnimationFrame(() => document.getElementById('automation-name')?.focus());
          }}
        />
        {editing ? (
          <AutomationForm
            key={editing === 'new' ? 'new' : editing.id}
            team={team}
            automation={editing === 'new' ? undefined : editing}
            onSaved={(name, created) => {
              setEditing(null);
              setNotice(`Automation ${name} ${created ? 'created' : 'saved'}.`);
            }}
            onCancel={() => setEditing(null)}
          />
        ) : null}
      </section>

      <DeliveryLog team={team} automationId={automationId} onAutomationChange={(id) => setSearch({ team, automation: id })} />
    </div>
  );
}

/** The viewer's default entity when it is one of their teams, else their first team. */
function defaultTeam(viewer: ReturnType<typeof useSession>['viewer']): string | null {
  const teams = viewer.teams.map((membership) => membership.team);
  const defaultEntity = viewer.defaultEntity?.name;
  return defaultEntity && teams.includes(defaultEntity) ? defaultEntity : (teams[0] ?? null);
}
