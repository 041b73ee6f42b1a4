import { PageHeader } from '../components/PageHeader';
import { Empty } from '../components/States';

/** Placeholder: replace this file with the page (see dashboard/README.md). */
export default function Traces() {
  return (
    <>
      <PageHeader title="Traces" description="Calls of a project: filter, sort and open a trace." />
      <Empty title="This page is not built yet." />
    </>
  );
}
