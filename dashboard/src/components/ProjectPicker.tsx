import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useClient, useQuery } from 'urql';
import { DashboardTeamProjectsDocument } from '../graphql/generated';
import { useSearchParams } from '../router';
import { useSession } from '../viewer';

/**
 * A select of the projects in the viewer's teams, as `entity/project`. Controlled: the page keeps the choice
 * (usually in the URL's `?project=`).
 */
export function ProjectPicker({ value, onChange, id = 'project-picker' }: { value: string | null; onChange: (project: string) => void; id?: string }) {
  const { viewer } = useSession();
  return (
    <div className="field field-inline">
      <label htmlFor={id}>Project</label>
      <select id={id} value={value ?? ''} onChange={(event) => onChange(event.target.value)}>
        {value ? null : <option value="">Choose a project…</option>}
        {viewer.teams.map((membership) => (
          <TeamProjectOptions key={membership.team} team={membership.team} selected={value ?? ''} />
        ))}
        {value && !value.includes('/') ? <option value={value}>{value}</option> : null}
      </select>
    </div>
  );
}

function TeamProjectOptions({ team, selected }: { team: string; selected: string }) {
  const [result] = useQuery({ query: DashboardTeamProjectsDocument, variables: { team } });
  const projects = result.data?.team?.projects ?? [];
  // The options arrive after the select was given its value; React does not re-apply it then, so the browser
  // would show the first option instead of the chosen project.
  const group = useRef<HTMLOptGroupElement>(null);
  useLayoutEffect(() => {
    const select = group.current?.parentElement;
    if (select instanceof HTMLSelectElement && select.value !== selected && projects.some((project) => project.fullName === selected)) select.value = selected;
  }, [projects, selected]);
  if (projects.length === 0) return null;
  return (
    <optgroup label={team} ref={group}>
      {projects.map((project) => (
        <option key={project.fullName} value={project.fullName}>
          {project.fullName}
        </option>
      ))}
    </optgroup>
  );
}

/** The project a page shows: `?project=` when given, else the first of the viewer's default entity's. */
export function splitProject(fullName: string | null): { entity: string; project: string } | null {
  if (!fullName) return null;
  const slash = fullName.indexOf('/');
  if (slash <= 0 || slash === fullName.length - 1) return null;
  return { entity: fullName.slice(0, slash), project: fullName.slice(slash + 1) };
}

/**
 * The page's project from `?project=entity/name`; without one, the first project of the viewer's teams (so a page
 * opens on something). The setter pushes a new URL with only the project (filters belong to a project).
 */
export function useProjectParam(): [string | null, (project: string) => void] {
  const { viewer } = useSession();
  const client = useClient();
  const [search, setSearch] = useSearchParams();
  const explicit = search.get('project');
  const [fallback, setFallback] = useState<string | null>(null);
  useEffect(() => {
    if (explicit) return;
    let cancelled = false;
    void (async () => {
      for (const membership of viewer.teams) {
        const result = await client.query(DashboardTeamProjectsDocument, { team: membership.team }).toPromise();
        const first = result.data?.team?.projects[0]?.fullName;
        if (first) {
          if (!cancelled) setFallback(first);
          return;
        }
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [explicit, viewer, client]);
  return [explicit ?? fallback, (project: string) => setSearch({ project }, { push: true })];
}
