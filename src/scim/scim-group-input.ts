import { isPlainObject, scimError } from '../common/errors';
import { isUuid } from '../common/ids';
import { invalidValue, lowerKeys, patchOperations, PatchTarget, resourceBody, targetsOf, text } from './scim-input';
import { Condition, unsupportedFilter } from './scim-path';

/** What a workspace's directory says of a group (docs/security.md, "SCIM"): its displayName names group roles. */
export interface ScimGroupState {
  displayName: string;
  externalId: string | null;
  /** User ids (a user of this workspace's directory each), in no particular order. */
  members: string[];
}

const MAX_NAME = 200;
const MAX_EXTERNAL_ID = 255;
/** Members one request names, at most. */
const MAX_MEMBERS = 10_000;

/** `[{value: "<user id>"}, ...]` (display, $ref and type are ignored); a single object too. */
export function memberIds(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  if (items.length > MAX_MEMBERS) throw invalidValue(`${field} names more than ${MAX_MEMBERS} members`);
  const ids = items.map((item, index) => {
    const id = isPlainObject(item) ? lowerKeys(item).get('value') : undefined;
    if (typeof id !== 'string') throw invalidValue(`${field}[${index}].value must be a user's id`);
    if (!isUuid(`${id}`)) throw invalidValue(`${field}[${index}].value: no user "${id.slice(0, 100)}" in this directory`);
    return id.toLowerCase();
  });
  return [...new Set(ids)];
}

/** POST and PUT bodies: the whole group. */
export function parseGroupResource(body: unknown): ScimGroupState {
  const fields = resourceBody(body);
  return {
    displayName: text(fields.get('displayname'), 'displayName', MAX_NAME, true)!,
    externalId: text(fields.get('externalid'), 'externalId', MAX_EXTERNAL_ID),
    members: memberIds(fields.get('members'), 'members'),
  };
}

type GroupChange = (state: ScimGroupState) => ScimGroupState;

function membersChange({ op, path, value }: PatchTarget): GroupChange {
  if (path.attribute !== 'members' || path.subAttribute) throw scimError(400, `Group has no attribute "${path.attribute}"`, 'invalidPath');
  if (path.filter) {
    // Entra and Okta remove one member as `members[value eq "<id>"]`.
    if (op !== 'remove') throw scimError(400, 'A members filter is only for remove', 'invalidPath');
    const named = path.filter.filter((c) => c.attribute === 'value');
    if (named.length !== path.filter.length || named.length !== 1 || typeof named[0].value !== 'string') {
      throw scimError(400, 'A members filter names one member: members[value eq "<id>"]', 'invalidPath');
    }
    const id = named[0].value.toLowerCase();
    return (s) => ({ ...s, members: s.members.filter((m) => m !== id) });
  }
  if (op === 'remove') {
    // Entra: {"op":"Remove","path":"members","value":[{"value":"<id>"}]}; without a value, every member.
    if (value === undefined || value === null) return (s) => ({ ...s, members: [] });
    const gone = new Set(memberIds(value, 'value'));
    return (s) => ({ ...s, members: s.members.filter((m) => !gone.has(m)) });
  }
  const ids = memberIds(value, 'value');
  return (s) => ({ ...s, members: op === 'add' ? [...new Set([...s.members, ...ids])] : ids });
}

function groupChange(target: PatchTarget): GroupChange | null {
  const { op, path, value, inValue } = target;
  const attribute = path.attribute;
  if (attribute === 'schemas') return null;
  if (attribute === 'id' || attribute === 'meta') {
    // Okta sends the group's id beside a new displayName: {"op":"replace","value":{"id":"...","displayName":"..."}}.
    if (inValue) return null;
    throw scimError(400, `${attribute} cannot be changed`, 'mutability');
  }
  if (attribute === 'members' || attribute.startsWith('members.')) return membersChange(target);
  if (path.filter || path.subAttribute) throw scimError(400, `${attribute} is not multi-valued: it takes no filter`, 'invalidPath');
  if (attribute === 'displayname') {
    if (op === 'remove') throw invalidValue('displayName is required');
    const displayName = text(value, 'displayName', MAX_NAME, true)!;
    return (s) => ({ ...s, displayName });
  }
  if (attribute === 'externalid') {
    const externalId = op === 'remove' ? null : text(value, 'externalId', MAX_EXTERNAL_ID);
    return (s) => ({ ...s, externalId });
  }
  throw scimError(400, `Group has no attribute "${attribute}"`, 'invalidPath');
}

/** A PATCH body, checked before anything is looked up; the result applies it to the stored group. */
export function compileGroupPatch(body: unknown): (state: ScimGroupState) => ScimGroupState {
  const changes = targetsOf(patchOperations(body))
    .map(groupChange)
    .filter((change): change is GroupChange => change !== null);
  return (state) => changes.reduce((s, change) => change(s), state);
}

/** What a Groups filter may compare, checked before any query. */
export function checkGroupFilter(conditions: Condition[]): Condition[] {
  for (const { attribute, value } of conditions) {
    if (!['displayname', 'externalid', 'id', 'members', 'members.value'].includes(attribute)) {
      throw unsupportedFilter('Groups', attribute, 'displayName, externalId, id, members.value');
    }
    if (typeof value !== 'string') throw unsupportedFilter('Groups', attribute, null, 'a string');
  }
  return conditions;
}
