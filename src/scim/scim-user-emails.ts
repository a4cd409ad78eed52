import { isPlainObject, scimError } from '../common/errors';
import { bool, invalidValue, isEmail, lowerKeys, MAX_EMAIL, PatchTarget, text } from './scim-input';
import { Condition } from './scim-path';

/** A directory's e-mail entry, as kept on its record (scim_users.emails). */
export interface ScimEmail {
  value: string;
  type: string | null;
  primary: boolean;
}

/** Addresses one user holds, at most. */
const MAX_EMAILS = 10;

export function emailEntry(value: unknown, field: string): ScimEmail {
  if (!isPlainObject(value)) throw invalidValue(`${field} must be an object`);
  const entry = lowerKeys(value);
  const address = text(entry.get('value'), `${field}.value`, MAX_EMAIL, true)!;
  if (!isEmail(address)) throw invalidValue(`${field}.value is not an e-mail address`);
  const primary = entry.get('primary');
  return {
    value: address,
    type: text(entry.get('type'), `${field}.type`, 32),
    primary: primary === undefined || primary === null ? false : bool(primary, `${field}.primary`),
  };
}

export function emailList(value: unknown, field: string): ScimEmail[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  if (items.length > MAX_EMAILS) throw invalidValue(`${field} holds more than ${MAX_EMAILS} addresses`);
  return items.map((item, index) => emailEntry(item, `${field}[${index}]`));
}

/** Adds or updates entries by address (any case); at most MAX_EMAILS. */
export function mergeEmails(current: ScimEmail[], added: ScimEmail[]): ScimEmail[] {
  const out = [...current];
  for (const email of added) {
    const at = out.findIndex((e) => e.value.toLowerCase() === email.value.toLowerCase());
    if (at >= 0) out[at] = email;
    else out.push(email);
  }
  if (out.length > MAX_EMAILS) throw invalidValue(`emails would hold more than ${MAX_EMAILS} addresses`);
  return out;
}

type EmailsChange = (emails: ScimEmail[]) => ScimEmail[];

const matches = (email: ScimEmail, filter: Condition[]) =>
  filter.every(({ attribute, value }) => {
    if (attribute === 'value') return typeof value === 'string' && email.value.toLowerCase() === value.toLowerCase();
    if (attribute === 'type')
      return email.type === value || (typeof value === 'string' && email.type?.toLowerCase() === value.toLowerCase());
    if (attribute === 'primary') return email.primary === value;
    return false;
  });

/** The address a path without a filter means: the primary one, or the first. */
const primaryIndex = (emails: ScimEmail[]): number[] =>
  emails.length
    ? [
        Math.max(
          0,
          emails.findIndex((e) => e.primary),
        ),
      ]
    : [];

/** A PATCH of `emails`, `emails[filter]`, `emails.sub` or `emails[filter].sub`, checked before it is applied. */
export function emailsChange({ op, path, value }: PatchTarget): EmailsChange {
  const [, dotted] = path.attribute.split('.');
  const sub = path.subAttribute ?? dotted ?? null;
  for (const name of [sub, ...(path.filter ?? []).map((c) => c.attribute)]) {
    if (name !== null && name !== 'value' && name !== 'type' && name !== 'primary') {
      throw scimError(400, `emails has no sub-attribute "${name}"`, 'invalidPath');
    }
  }
  const filter = path.filter;
  if (!filter && sub === null) {
    if (op !== 'remove') {
      const items = emailList(value, 'value');
      return (emails) => mergeEmails(op === 'add' ? emails : [], items);
    }
    const gone = value === undefined || value === null ? null : emailList(value, 'value').map((e) => e.value.toLowerCase());
    return (emails) => (gone ? emails.filter((e) => !gone.includes(e.value.toLowerCase())) : []);
  }
  const selected = (emails: ScimEmail[]) => (filter ? emails.flatMap((e, i) => (matches(e, filter) ? [i] : [])) : primaryIndex(emails));
  if (op === 'remove') {
    return (emails) => {
      const hit = new Set(selected(emails));
      if (sub === null || sub === 'value') return emails.filter((_e, i) => !hit.has(i));
      return emails.map((e, i) => (hit.has(i) ? { ...e, [sub]: sub === 'primary' ? false : null } : e));
    };
  }
  const patch: Partial<ScimEmail> =
    sub === null
      ? emailEntry(value, 'value')
      : sub === 'value'
        ? { value: emailEntry({ value }, 'value').value }
        : sub === 'type'
          ? { type: text(value, 'value', 32) }
          : { primary: bool(value, 'value') };
  const type = filter?.find((c) => c.attribute === 'type')?.value;
  // Entra and Okta write `emails[type eq "work"].value` to a user who has no such address yet: it is added.
  const addsWhenMissing = sub === 'value' && (!filter || (filter.length === 1 && typeof type === 'string'));
  return (emails) => {
    const hit = selected(emails);
    if (hit.length > 0) return emails.map((e, i) => (hit.includes(i) ? { ...e, ...patch } : e));
    if (!addsWhenMissing) throw scimError(400, `${path.attribute}: the filter matches no address`, 'noTarget');
    return mergeEmails(emails, [{ value: patch.value!, type: typeof type === 'string' ? type : null, primary: false }]);
  };
}
