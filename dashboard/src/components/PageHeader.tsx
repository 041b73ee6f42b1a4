import { useEffect, type ReactNode } from 'react';

/** The page's title (its one h1, also the document title), an optional description and actions on the right. */
export function PageHeader({ title, description, actions, children }: { title: string; description?: ReactNode; actions?: ReactNode; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Trellis`;
  }, [title]);
  return (
    <header className="page-header">
      <div className="page-header-text">
        <h1>{title}</h1>
        {description ? <p className="page-description">{description}</p> : null}
        {children}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}
