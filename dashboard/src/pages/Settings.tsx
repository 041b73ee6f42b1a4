import { PageHeader } from '../components/PageHeader';
import { Empty } from '../components/States';

/** Placeholder: replace this file with the page (see dashboard/README.md). */
export default function Settings() {
  return (
    <>
      <PageHeader title="Settings" description="API keys and team members." />
      <Empty title="This page is not built yet." />
    </>
  );
}
