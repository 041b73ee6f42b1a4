import { useEffect } from 'react';
import { useQuery } from 'urql';
import { PageHeader } from '../components/PageHeader';
import { Empty, ErrorState, Loading } from '../components/States';
import { CallLocationDocument } from '../graphql/generated';
import type { PageProps } from '../routes';
import { href, useRouter } from '../router';

/**
 * Where a call link the Weave SDK printed (`/<entity>/<project>/r/call/<id>`) lands: the call's trace, with the call
 * selected. The link names only the call, so its trace is looked up with the signed-in key.
 */
export default function CallLink({ params }: PageProps) {
  const entity = params.entity ?? '';
  const project = params.project ?? '';
  const id = params.callId ?? '';
  const { navigate } = useRouter();
  const [result] = useQuery({ query: CallLocationDocument, variables: { entity, project, id } });
  const traceId = result.data?.project?.call?.traceId;
  useEffect(() => {
    if (traceId) navigate(href(`/traces/${encodeURIComponent(entity)}/${encodeURIComponent(project)}/${encodeURIComponent(traceId)}`, { call: id }), { replace: true });
  }, [traceId, entity, project, id, navigate]);

  if (result.error) return <ErrorState error={result.error} />;
  if (result.fetching || traceId) return <Loading label="Opening the call…" />;
  return (
    <>
      <PageHeader title="Call not found" />
      <Empty title={`No call ${id} in ${entity}/${project}`}>It may not have been recorded yet, or this key cannot see the project.</Empty>
    </>
  );
}
