import { type ReactNode, useId } from 'react';
import { Dialog, DialogTrigger, Heading, Modal } from 'react-aria-components';

import { ApiError } from '../api/client';
import { Button } from './button';

/** What a screen shows before there is anything to list: what it is for and what to do. */
export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="empty" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** An error's message, and each of its details (a 400's problems, a refused deploy's missing scores) as a list. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const details = error instanceof ApiError ? error.details : [];
  if (details.length === 0)
    return (
      <p role="alert" className="error">
        {error instanceof Error ? error.message : String(error)}
      </p>
    );
  return (
    <div role="alert" className="error error-box">
      <p>{(error as Error).message}</p>
      <ul aria-label="Details">
        {details.map((detail, index) => (
          <li key={index}>{detail}</li>
        ))}
      </ul>
    </div>
  );
}

export function Loading() {
  return (
    <p className="muted" aria-live="polite">
      Loading…
    </p>
  );
}

/**
 * A button that asks before it acts: deploy, rollback, revoke. `danger` (an act that cannot be
 * undone: revoke, remove, delete, cancel) makes the dialog's confirming button red; the button that
 * opens the dialog stays neutral (`tone` secondary), so a table of keys is not a column of alarms.
 */
export function ConfirmButton(props: {
  label: string;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  danger?: boolean;
  /** The opening button: primary (the accent), or secondary (outlined); secondary for `danger` unless given. */
  tone?: 'primary' | 'secondary';
  isDisabled?: boolean;
}) {
  const tone = props.tone ?? (props.danger ? 'secondary' : 'primary');
  return (
    <DialogTrigger>
      <Button tone={tone} isDisabled={props.isDisabled}>
        {props.label}
      </Button>
      <Modal className="modal" isDismissable>
        <Dialog className="dialog" role="alertdialog">
          {({ close }) => (
            <>
              <Heading slot="title">{props.title}</Heading>
              <div>{props.children}</div>
              <div className="row end">
                <Button tone="secondary" onPress={close}>
                  Cancel
                </Button>
                <Button
                  tone={props.danger ? 'danger' : 'primary'}
                  onPress={() => {
                    props.onConfirm();
                    close();
                  }}
                >
                  {props.confirmLabel}
                </Button>
              </div>
            </>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  );
}

/** A titled box of the page (a form, a group of facts): a region named by its heading. */
export function Card({ title, children, className }: { title: ReactNode; children: ReactNode; className?: string }) {
  const id = useId();
  return (
    <section className={className ? `panel ${className}` : 'panel'} aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** Figures side by side, each a label over a large number (a run's counts, usage totals); `tone` colours one. */
export function Stats({ label, items }: { label: string; items: { label: string; value: ReactNode; tone?: 'ok' | 'danger' | 'muted' }[] }) {
  return (
    <dl className="stats" aria-label={label}>
      {items.map((item) => (
        <div key={item.label} className={item.tone ? `stat ${item.tone}` : 'stat'}>
          <dt>{item.label}</dt>
          <dd>{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A status pill: neutral, or a tone that says how it went (ok, warn: still going, danger: failed). */
export function Badge({ children, tone, title }: { children: ReactNode; tone?: 'ok' | 'warn' | 'danger'; title?: string }) {
  return (
    <span className={tone ? `badge ${tone}` : 'badge'} title={title}>
      {children}
    </span>
  );
}

/** Something to know before acting (`note`), or news of what just happened (`status`, announced). */
export function Notice({ children, live = false, className }: { children: ReactNode; live?: boolean; className?: string }) {
  return (
    <p className={className ? `notice ${className}` : 'notice'} role={live ? 'status' : 'note'}>
      {children}
    </p>
  );
}

/** The next page of a keyset list (TanStack Query's infinite query), while there is one. */
export function LoadMore({ pages }: { pages: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown } }) {
  if (!pages.hasNextPage) return null;
  return (
    <Button tone="secondary" onPress={() => void pages.fetchNextPage()} isDisabled={pages.isFetchingNextPage}>
      Load more
    </Button>
  );
}

/** JSON shown as text (never as markup): user-written content stays inert. */
export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="code" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** An ISO time or Unix seconds (the thread endpoints' `createdAt`), in UTC. */
export function formatTime(time: string | number | null | undefined): string {
  if (time === null || time === undefined || time === '') return '—';
  const date = new Date(typeof time === 'number' ? time * 1000 : time);
  return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 19)} UTC`;
}
