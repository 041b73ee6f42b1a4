import { PageHeader } from '../components/PageHeader';
import { Empty } from '../components/States';

/** Placeholder: replace this file with the page (see dashboard/README.md). */
export default function Training() {
  return (
    <>
      <PageHeader title="Training" description="Models, checkpoints, jobs and their curves." />
      <Empty title="This page is not built yet." />
    </>
  );
}
