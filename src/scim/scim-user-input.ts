import { isPlainObject, scimError } from '../common/errors';
import {
  bool,
  invalidValue,
  isEmail,
  lowerKeys,
  MAX_EMAIL,
  patchOperations,
  PatchTarget,
  resourceBody,
  targetsOf,
  text,
} from './scim-input';
import { Condition, unsupportedFilter } from './scim-path';
import { emailList, emailsChange, mergeEmails, ScimEmail } from './scim-user-emails';

export type { ScimEmail } from './scim-user-emails';
import { ENTERPRISE_USER_SCHEMA } from './scim-schemas';

/** What a workspace's directory says of a user (docs/security.md, "SCIM"). */
export interface ScimUserState {
  userName: string;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  emails: ScimEmail[];
  active: boolean;
}

const MAX_NAME = 200;
const MAX_EXTERNAL_ID = 255;

/**
 * Attributes of RFC 7643's User (and the enterprise extension) this service provider does not
 * keep: accepted and ignored, so a directory that sends them (Entra sends title, phoneNumbers,
 * addresses...) provisions without errors. Any other attribute is `invalidPath`.
 */
const IGNORED = new Set([
  'nickname',
  'profileurl',
  'title',
  'usertype',
  'preferredlanguage',
  'locale',
  'timezone',
  'password',
  'phonenumbers',
  'ims',
  'photos',
  'addresses',
  'entitlements',
  'roles',
  'x509certificates',
  'schemas',
  'name.formatted',
  'name.middlename',
  'name.honorificprefix',
  'name.honorificsuffix',
]);
const READ_ONLY = new Set(['id', 'meta', 'groups']);
const ENTERPRISE = ENTERPRISE_USER_SCHEMA.toLowerCase();
const ignored = (attribute: string) => IGNORED.has(attribute) || attribute === ENTERPRISE || attribute.startsWith(`${ENTERPRISE}:`);

/**
 * POST and PUT bodies (RFC 7644 §3.3, §3.5.1): the whole user, read and checked before anything is
 * looked up. The result makes the new state from the stored one (null on a create): `active`
 * absent is true on a create and unchanged on a replace.
 */
export function parseUserResource(body: unknown): (current: ScimUserState | null) => ScimUserState {
  const fields = resourceBody(body);
  const name = fields.get('name');
  if (name !== undefined && name !== null && !isPlainObject(name)) throw invalidValue('name must be an object');
  const names = name ? lowerKeys(name) : new Map<string, unknown>();
  const active = fields.get('active');
  const given = active === undefined || active === null ? null : bool(active, 'active');
  const state: Omit<ScimUserState, 'active'> = {
    userName: text(fields.get('username'), 'userName', MAX_EMAIL, true)!,
    externalId: text(fields.get('externalid'), 'externalId', MAX_EXTERNAL_ID),
    givenName: text(names.get('givenname'), 'name.givenName', MAX_NAME),
    familyName: text(names.get('familyname'), 'name.familyName', MAX_NAME),
    displayName: text(fields.get('displayname'), 'displayName', MAX_NAME),
    emails: mergeEmails([], emailList(fields.get('emails'), 'emails')),
  };
  return (current) => ({ ...state, active: given ?? current?.active ?? true });
}

/** The instance-wide e-mail: the userName when it is one, else the primary (or first) address. */
export function emailOf(state: ScimUserState): string {
  if (isEmail(state.userName)) return state.userName;
  const email = state.emails.find((e) => e.primary) ?? state.emails[0];
  if (!email) throw invalidValue('userName must be an e-mail address, or emails must hold one');
  return email.value;
}

/** Whether two states say the same (a directory's periodic PUT of an unchanged user writes nothing). */
export function sameUser(a: ScimUserState, b: ScimUserState): boolean {
  const scalars: (keyof ScimUserState)[] = ['userName', 'externalId', 'givenName', 'familyName', 'displayName', 'active'];
  return (
    scalars.every((key) => a[key] === b[key]) &&
    a.emails.length === b.emails.length &&
    a.emails.every((e, i) => e.value === b.emails[i].value && e.type === b.emails[i].type && e.primary === b.emails[i].primary)
  );
}

/** The person's name as the console shows it. */
export function personNameOf(state: ScimUserState): string | null {
  const formatted = [state.givenName, state.familyName].filter(Boolean).join(' ');
  return state.displayName ?? (formatted === '' ? null : formatted.slice(0, MAX_NAME));
}

type UserChange = (state: ScimUserState) => ScimUserState;

function nameChange({ op, value }: PatchTarget): UserChange {
  if (op === 'remove') return (s) => ({ ...s, givenName: null, familyName: null });
  if (!isPlainObject(value)) throw invalidValue('name must be an object');
  const names = lowerKeys(value);
  const given = names.has('givenname') ? text(names.get('givenname'), 'name.givenName', MAX_NAME) : undefined;
  const family = names.has('familyname') ? text(names.get('familyname'), 'name.familyName', MAX_NAME) : undefined;
  return (s) => ({ ...s, givenName: given === undefined ? s.givenName : given, familyName: family === undefined ? s.familyName : family });
}

function userChange(target: PatchTarget): UserChange | null {
  const { op, path, value, inValue } = target;
  const attribute = path.attribute;
  if (ignored(attribute)) return null;
  if (READ_ONLY.has(attribute)) {
    if (inValue) return null;
    throw scimError(400, `${attribute} cannot be changed`, 'mutability');
  }
  if (attribute === 'emails' || attribute.startsWith('emails.')) {
    const change = emailsChange(target);
    return (s) => ({ ...s, emails: change(s.emails) });
  }
  if (path.filter || path.subAttribute) throw scimError(400, `${attribute} is not multi-valued: it takes no filter`, 'invalidPath');
  const set = op === 'remove' ? null : value;
  switch (attribute) {
    case 'username': {
      if (op === 'remove') throw invalidValue('userName is required');
      const userName = text(set, 'userName', MAX_EMAIL, true)!;
      return (s) => ({ ...s, userName });
    }
    case 'active': {
      if (op === 'remove') throw invalidValue('active cannot be removed');
      const active = bool(set, 'active');
      return (s) => ({ ...s, active });
    }
    case 'externalid': {
      const externalId = text(set, 'externalId', MAX_EXTERNAL_ID);
      return (s) => ({ ...s, externalId });
    }
    case 'displayname': {
      const displayName = text(set, 'displayName', MAX_NAME);
      return (s) => ({ ...s, displayName });
    }
    case 'name':
      return nameChange(target);
    case 'name.givenname': {
      const givenName = text(set, 'name.givenName', MAX_NAME);
      return (s) => ({ ...s, givenName });
    }
    case 'name.familyname': {
      const familyName = text(set, 'name.familyName', MAX_NAME);
      return (s) => ({ ...s, familyName });
    }
  }
  throw scimError(400, `User has no attribute "${attribute}"`, 'invalidPath');
}

/**
 * A PATCH body read and checked before anything is looked up (every refusal that does not depend
 * on the stored user); the result applies it to the stored user, in order. Okta's
 * `{"op":"replace","value":{"active":false}}` and Entra's `{"op":"Replace","path":"active","value":"False"}` both deactivate.
 */
export function compileUserPatch(body: unknown): (state: ScimUserState) => ScimUserState {
  const changes = targetsOf(patchOperations(body))
    .map(userChange)
    .filter((change): change is UserChange => change !== null);
  return (state) => changes.reduce((s, change) => change(s), state);
}

/** What a Users filter may compare (docs/security.md, "SCIM"), checked before any query. */
export function checkUserFilter(conditions: Condition[]): Condition[] {
  for (const { attribute, value } of conditions) {
    const field = attribute === 'emails' ? 'emails.value' : attribute;
    if (!['username', 'externalid', 'id', 'emails.value', 'emails.type', 'emails.primary'].includes(field)) {
      throw unsupportedFilter('Users', attribute, 'userName, externalId, id, emails.value, emails.type');
    }
    if (field === 'emails.primary' ? typeof value !== 'boolean' : typeof value !== 'string') {
      throw unsupportedFilter('Users', attribute, null, field === 'emails.primary' ? 'true or false' : 'a string');
    }
  }
  return conditions;
}
