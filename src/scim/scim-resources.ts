import { scimError } from '../common/errors';
import { invalidValue } from './scim-input';
import { Condition, parseFilter } from './scim-path';
import { GROUP_SCHEMA, MAX_RESULTS, USER_SCHEMA } from './scim-schemas';
import type { ScimUserRow } from './scim-users.repository';

const iso = (value: Date | string) => new Date(value).toISOString();

/** RFC 7643 §4.1: a user as this workspace's directory wrote it, with the Parley user id as its id. */
export function userResource(row: ScimUserRow, baseUrl: string): Record<string, unknown> {
  const formatted = [row.given_name, row.family_name].filter(Boolean).join(' ');
  return {
    schemas: [USER_SCHEMA],
    id: row.user_id,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    userName: row.user_name,
    name: {
      ...(row.given_name !== null ? { givenName: row.given_name } : {}),
      ...(row.family_name !== null ? { familyName: row.family_name } : {}),
      ...(formatted !== '' ? { formatted } : {}),
    },
    ...(row.display_name !== null ? { displayName: row.display_name } : {}),
    emails: row.emails.map((e) => ({ value: e.value, ...(e.type !== null ? { type: e.type } : {}), primary: e.primary })),
    active: row.active,
    meta: {
      resourceType: 'User',
      created: iso(row.created_at),
      lastModified: iso(row.updated_at),
      location: `${baseUrl}/Users/${row.user_id}`,
    },
  };
}

export interface ScimGroupRow {
  id: string;
  display_name: string;
  external_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** RFC 7643 §4.2; `members` left out when the client asked (`excludedAttributes=members`, Okta and Entra do). */
export function groupResource(
  row: ScimGroupRow,
  members: { user_id: string; user_name: string }[] | null,
  baseUrl: string,
): Record<string, unknown> {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    displayName: row.display_name,
    ...(members
      ? { members: members.map((m) => ({ value: m.user_id, display: m.user_name, $ref: `${baseUrl}/Users/${m.user_id}`, type: 'User' })) }
      : {}),
    meta: {
      resourceType: 'Group',
      created: iso(row.created_at),
      lastModified: iso(row.updated_at),
      location: `${baseUrl}/Groups/${row.id}`,
    },
  };
}

/** A list request's query (RFC 7644 §3.4.2): its filter, its page (startIndex is 1-based), and whether members are wanted. */
export interface ListQuery {
  conditions: Condition[];
  startIndex: number;
  count: number;
  withMembers: boolean;
}

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidValue(`${name} must be given once`);
  return value;
}

function integer(query: Record<string, unknown>, name: string): number | undefined {
  const value = single(query, name);
  if (value === undefined || value === '') return undefined;
  if (!/^-?\d{1,9}$/.test(value.trim())) throw invalidValue(`${name} must be an integer`);
  return Number(value);
}

/**
 * `filter`, `startIndex` (below 1 is 1), `count` (default and most: MAX_RESULTS; below 0 is 0),
 * `excludedAttributes` (`members` is honoured; other attributes are always returned). Sorting is
 * not supported (ServiceProviderConfig says so): sortBy is ignored.
 */
export function listQuery(query: Record<string, unknown>): ListQuery {
  const filter = single(query, 'filter');
  const excluded = single(query, 'excludedAttributes') ?? '';
  const startIndex = Math.max(1, integer(query, 'startIndex') ?? 1);
  const count = Math.min(MAX_RESULTS, Math.max(0, integer(query, 'count') ?? MAX_RESULTS));
  return {
    conditions: filter === undefined || filter.trim() === '' ? [] : parseFilter(filter.trim()),
    startIndex,
    count,
    withMembers: !excluded
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .some((name) => name === 'members' || name === `${GROUP_SCHEMA.toLowerCase()}:members`),
  };
}

/** An id the path names that this directory does not have. */
export const resourceNotFound = (kind: 'User' | 'Group', id: string) => scimError(404, `${kind} ${id.slice(0, 100)} not found`);
