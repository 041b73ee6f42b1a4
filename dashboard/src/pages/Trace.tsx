import { PageHeader } from '../components/PageHeader';
import { Empty } from '../components/States';

/** Placeholder: replace this file with the page (see dashboard/README.md). */
export default function Trace() {
  return (
    <>
      <PageHeader title="Trace" description="A trace's call tree." />
      <Empty title="This page is not built yet." />
    </>
  );
}
