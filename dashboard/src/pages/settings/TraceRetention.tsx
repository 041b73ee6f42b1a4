import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { ProjectPicker, splitProject, useProjectParam } from '../../components/ProjectPicker';
import { Empty, InlineError, QueryState } from '../../components/States';
import { SettingsSetTraceRetentionDocument, SettingsTraceRetentionDocument } from '../../graphql/generated';

/**
 * A project's trace retention: what applies now, and a form for its admins to set it (the server refuses others with
 * FORBIDDEN, shown as it answers) or go back to the platform default.
 */
export function TraceRetention() {
  const [project, setProject] = useProjectParam();
  const target = splitProject(project);
  const [result, reexecute] = useQuery({
    query: SettingsTraceRetentionDocument,
    variables: { entity: target?.entity ?? '', project: target?.project ?? '' },
    pause: !target,
  });
  const [saved, save] = useMutation(SettingsSetTraceRetentionDocument);
  const [days, setDays] = useState('');
  const own = result.data?.project?.traceRetentionDays ?? null;
  useEffect(() => setDays(own === null ? '' : String(own)), [own, project]);

  const submit = async (value: number | null) => {
    if (!target) return;
    const outcome = await save({ entity: target.entity, project: target.project, days: value });
    if (!outcome.error) reexecute({ requestPolicy: 'network-only' });
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void submit(days.trim() === '' ? null : Number(days));
  };

  return (
    <section className="section card" aria-labelledby="retention-heading">
      <h2 id="retention-heading">Trace retention</h2>
      <p className="hint">
        A project&apos;s traces are deleted, each trace whole with the feedback on its calls, once its root call started longer ago than the
        retention: whole days, 1 to 36500. Leave it empty to follow the platform default.
      </p>
      <ProjectPicker id="retention-project" value={project} onChange={setProject} />
      {!target ? (
        <Empty title="No project to show." />
      ) : (
        <QueryState result={result} loadingLabel="Loading the retention…">
          {(data) =>
            data.project ? (
              <>
                <p data-testid="retention-effective">
                  {data.project.traceRetentionEffectiveDays === null || data.project.traceRetentionEffectiveDays === undefined
                    ? 'Traces are kept forever.'
                    : `Traces are kept ${data.project.traceRetentionEffectiveDays} days (${data.project.traceRetentionDays === null ? 'the platform default' : 'this project’s setting'}).`}
                </p>
                <form className="filters" onSubmit={onSubmit} aria-label={`Trace retention of ${data.project.fullName}`}>
                  <div className="field">
                    <label htmlFor="retention-days">Days to keep traces</label>
                    <input
                      id="retention-days"
                      type="number"
                      value={days}
                      placeholder="platform default"
                      onChange={(event) => setDays(event.target.value)}
                    />
                  </div>
                  <button type="submit" className="button button-primary" disabled={saved.fetching}>
                    Save retention
                  </button>
                  {own !== null ? (
                    <button type="button" className="button button-quiet" onClick={() => void submit(null)} disabled={saved.fetching}>
                      Use the platform default
                    </button>
                  ) : null}
                </form>
                {saved.error ? <InlineError error={saved.error} /> : null}
              </>
            ) : (
              <Empty title={`There is no project ${project} you can see.`} />
            )
          }
        </QueryState>
      )}
    </section>
  );
}
