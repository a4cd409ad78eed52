import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Form, Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { Picker, TextInput } from '../../components/fields';
import { DataTable } from '../../components/table';
import { EmptyState, ErrorNote, formatTime, JsonBlock, Loading } from '../../components/ui';
import { useProject, useSession } from '../../session';

type Trail = 'project' | 'instance';
type Actor = Schemas['AuditActorDto'] | Schemas['InstanceAuditActorDto'];
type AuditEvent = Schemas['AuditEventDto'] | Schemas['InstanceAuditEventDto'];

const RESOURCE_TYPES: Record<Trail, string[]> = {
  project: ['prompt', 'version', 'deployment', 'environment', 'provider', 'api_key', 'limits', 'dataset', 'grader', 'eval_run', 'settings'],
  instance: ['workspace', 'project', 'admin_key', 'member', 'group_role', 'user', 'sign_in', 'scim_token', 'scim_user', 'scim_group'],
};

/** The filters of each trail, all kept in the URL (a link to a filtered page opens it), named as the API names them. */
const FILTERS: Record<Trail, readonly string[]> = {
  project: ['action', 'resourceType', 'actorEmail', 'actorKeyId'],
  instance: ['workspace', 'action', 'resourceType', 'actorEmail'],
};
type Filters = Record<string, string>;

/**
 * Who made a change (docs/security.md, "Audit trail"): a person by their e-mail; a key by its
 * name (its id in the title); the CLI, the server itself, a directory (SCIM) by what they are.
 */
export function actorLabel(actor: Actor): string {
  switch (actor.kind) {
    case 'user':
      return actor.email ?? actor.userId ?? 'a person';
    case 'operator':
      return 'the CLI (operator)';
    case 'system':
      return 'Parley itself';
    case 'scim':
      return `SCIM: ${actor.keyName ?? actor.keyId ?? 'a directory'}`;
    case 'anonymous':
      return actor.email ? `${actor.email} (not signed in)` : 'not signed in';
    default:
      return `${actor.kind === 'admin' ? 'admin key' : 'key'} ${actor.keyName ?? actor.keyId ?? ''}`.trim();
  }
}

/**
 * The audit trails (docs/console.md, "Audit"): the project's changes for a project session (or an
 * admin working in a project), and for an admin the instance's own trail (workspaces, projects,
 * admin keys, members, sign-ins) in a second tab. Newest first, keyset-paged (`after`), one API
 * request per page; each row names the person (their e-mail) or the key.
 */
export function AuditScreen() {
  const session = useSession().data;
  const project = useProject();
  const [params, setParams] = useSearchParams();
  const admin = session?.kind === 'admin';
  const trails: Trail[] = [...(project ? (['project'] as const) : []), ...(admin ? (['instance'] as const) : [])];
  const asked = params.get('trail');
  const trail: Trail = trails.includes(asked as Trail) ? (asked as Trail) : (trails[0] ?? 'project');

  return (
    <>
      <h1>Audit</h1>
      {trails.length > 1 ? (
        <Tabs selectedKey={trail} onSelectionChange={(key) => setParams({ trail: String(key) })}>
          <TabList aria-label="Trail" className="tabs">
            <Tab id="project">This project</Tab>
            <Tab id="instance">Instance</Tab>
          </TabList>
          {trails.map((id) => (
            <TabPanel key={id} id={id}>
              <AuditTrail trail={id} params={params} setParams={setParams} />
            </TabPanel>
          ))}
        </Tabs>
      ) : (
        <AuditTrail trail={trail} params={params} setParams={setParams} />
      )}
    </>
  );
}

function AuditTrail({
  trail,
  params,
  setParams,
}: {
  trail: Trail;
  params: URLSearchParams;
  setParams: (next: Record<string, string>) => void;
}) {
  const filters: Filters = Object.fromEntries(FILTERS[trail].flatMap((name) => (params.get(name) ? [[name, params.get(name)!]] : [])));
  const after = params.get('after') ?? undefined;
  const query = { ...filters, limit: 50, ...(after ? { after } : {}) };
  const events = useQuery({
    queryKey: ['audit', trail, filters, after],
    queryFn: async () =>
      trail === 'project' ? unwrap(api.GET('/v2/audit', { params: { query } })) : unwrap(api.GET('/v2/admin/audit', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const base: Filters = trail === 'project' ? {} : { trail };
  const link = (extra: Filters) => `?${new URLSearchParams({ ...base, ...filters, ...extra }).toString()}`;
  const apply = (next: Filters) => setParams({ ...base, ...Object.fromEntries(Object.entries(next).filter(([, v]) => v)) });
  const filtered = Object.keys(filters).length > 0;
  const rows: AuditEvent[] = events.data?.data ?? [];

  return (
    <>
      <AuditFilters key={`${trail}:${params.toString()}`} trail={trail} initial={filters} onApply={apply} />
      <ErrorNote error={events.error} />
      {events.isPending ? (
        <Loading />
      ) : rows.length > 0 ? (
        <>
          <DataTable
            label={`${trail === 'project' ? "The project's changes" : "The instance's events"}, newest first`}
            columns={['When', 'Who', 'Action', 'Resource', trail === 'instance' && 'Workspace', 'Change']}
          >
            {rows.map((event) => (
              <tr key={event.id}>
                <td>{formatTime(event.createdAt)}</td>
                <td title={event.actor.userId ?? event.actor.keyId ?? undefined}>{actorLabel(event.actor)}</td>
                <td>{event.action}</td>
                <td>
                  <span className="muted">{event.resourceType}</span> {event.resourceId}
                </td>
                {'workspace' in event ? <td>{event.workspace ?? '—'}</td> : null}
                <td>
                  <details>
                    <summary>Before and after</summary>
                    <JsonBlock label={`Before ${event.action} ${event.resourceId}`} value={event.before} />
                    <JsonBlock label={`After ${event.action} ${event.resourceId}`} value={event.after} />
                    <p className="muted">
                      Request {event.requestId ?? '—'}
                      {'clientAddress' in event && event.clientAddress ? ` from ${event.clientAddress}` : ''}
                    </p>
                  </details>
                </td>
              </tr>
            ))}
          </DataTable>
          <nav className="row" aria-label="Pages">
            {after ? <Link to={link({})}>Newest</Link> : null}
            {events.data?.has_more && events.data.last_id ? <Link to={link({ after: events.data.last_id })}>Older</Link> : null}
          </nav>
        </>
      ) : (
        <EmptyState title={filtered ? 'No events match these filters' : 'No events yet'}>
          <p>
            {filtered
              ? 'Clear a filter to see more.'
              : trail === 'project'
                ? 'Every change to prompts, deployments, environments, providers, keys and limits is recorded here, with who made it.'
                : 'Workspaces, projects, admin keys, members and sign-ins are recorded here, with who acted.'}
          </p>
        </EmptyState>
      )}
    </>
  );
}

function AuditFilters({ trail, initial, onApply }: { trail: Trail; initial: Filters; onApply: (filters: Filters) => void }) {
  const [filters, setFilters] = useState<Filters>(initial);
  const set = (name: string) => (value: string) => setFilters({ ...filters, [name]: value });
  const workspaces = useQuery({
    queryKey: ['workspaces'],
    queryFn: () => unwrap(api.GET('/v2/workspaces')),
    enabled: trail === 'instance',
  });
  const any = { id: 'any', label: 'any' };
  return (
    <Form
      className="filters"
      aria-label="Filters"
      onSubmit={(event) => {
        event.preventDefault();
        onApply(filters);
      }}
    >
      {trail === 'instance' ? (
        <Picker
          label="Workspace"
          items={[any, ...(workspaces.data?.data ?? []).map((w) => w.slug)]}
          value={filters.workspace || 'any'}
          onChange={(key) => set('workspace')(key === 'any' ? '' : key)}
        />
      ) : null}
      <TextInput
        label="Action"
        value={filters.action ?? ''}
        onChange={set('action')}
        placeholder={trail === 'project' ? 'provider.updated' : 'workspace.created'}
      />
      <Picker
        label="Resource type"
        items={[any, ...RESOURCE_TYPES[trail]]}
        value={filters.resourceType || 'any'}
        onChange={(key) => set('resourceType')(key === 'any' ? '' : key)}
      />
      <TextInput
        label="Person (e-mail)"
        value={filters.actorEmail ?? ''}
        onChange={set('actorEmail')}
        type="email"
        placeholder="ada@example.com"
      />
      {trail === 'project' ? <TextInput label="Key id" value={filters.actorKeyId ?? ''} onChange={set('actorKeyId')} /> : null}
      <Button type="submit">Filter</Button>
    </Form>
  );
}
