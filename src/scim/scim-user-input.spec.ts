import { MALFORMED_JSON_BODY, ScimException } from '../common/errors';
import { compileUserPatch, emailOf, parseUserResource, personNameOf, ScimUserState } from './scim-user-input';

function refusal(call: () => unknown): { status: number; scimType?: string; detail: string } {
  try {
    call();
  } catch (err) {
    if (err instanceof ScimException) {
      const { scimType, detail } = err.body as { scimType?: string; detail: string };
      return { status: err.getStatus(), scimType, detail };
    }
    throw err;
  }
  throw new Error('no refusal');
}

const ADA: ScimUserState = {
  userName: 'ada@example.com',
  externalId: 'okta-1',
  givenName: 'Ada',
  familyName: 'Lovelace',
  displayName: null,
  emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
  active: true,
};

const patch = (operations: unknown[], state: ScimUserState = ADA) =>
  compileUserPatch({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: operations })(state);

describe('parseUserResource', () => {
  it('reads what Okta and Entra send, keys in any case, and ignores what Parley does not keep', () => {
    const state = parseUserResource({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      UserName: 'ada@example.com',
      name: { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' },
      emails: [{ primary: 'True', value: 'ada@example.com', type: 'work' }],
      externalId: 'okta-1',
      locale: 'en-US',
      password: 'never-kept',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'R&D' },
    })(null);
    expect(state).toEqual(ADA);
    expect(emailOf(state)).toBe('ada@example.com');
    expect(personNameOf(state)).toBe('Ada Lovelace');
  });

  it('keeps active as it is on a replace that leaves it out, and makes it true on a create', () => {
    const change = parseUserResource({ userName: 'ada@example.com' });
    expect(change(null).active).toBe(true);
    expect(change({ ...ADA, active: false }).active).toBe(false);
    expect(parseUserResource({ userName: 'ada@example.com', active: 'False' })(ADA).active).toBe(false);
  });

  it('takes the e-mail from emails when userName is not one', () => {
    const state = parseUserResource({ userName: 'ada', emails: [{ value: 'x@example.com' }, { value: 'ada@example.com', primary: true }] })(
      null,
    );
    expect(emailOf(state)).toBe('ada@example.com');
    expect(refusal(() => emailOf(parseUserResource({ userName: 'ada' })(null)))).toEqual({
      status: 400,
      scimType: 'invalidValue',
      detail: 'userName must be an e-mail address, or emails must hold one',
    });
  });

  it.each([
    [MALFORMED_JSON_BODY, 'invalidSyntax', 'Invalid body: the body is not valid JSON'],
    [[], 'invalidSyntax', 'Invalid body: a JSON object is expected'],
    [{}, 'invalidValue', 'userName is required'],
    [{ userName: ' ' }, 'invalidValue', 'userName is required'],
    [{ userName: 5 }, 'invalidValue', 'userName must be a string'],
    [{ userName: 'a'.repeat(321) }, 'invalidValue', 'userName is longer than 320 characters'],
    [{ userName: 'a@b', active: 'yes' }, 'invalidValue', 'active must be true or false'],
    [{ userName: 'a@b', name: 'Ada' }, 'invalidValue', 'name must be an object'],
    [{ userName: 'a@b', emails: [{ value: 'not an address' }] }, 'invalidValue', 'emails[0].value is not an e-mail address'],
    [
      { userName: 'a@b', emails: Array.from({ length: 11 }, (_v, i) => ({ value: `${i}@b` })) },
      'invalidValue',
      'emails holds more than 10 addresses',
    ],
  ])('refuses %j', (body, scimType, detail) => {
    expect(refusal(() => parseUserResource(body))).toEqual({ status: 400, scimType, detail });
  });
});

describe('compileUserPatch', () => {
  it("deactivates with Okta's pathless replace and Entra's string boolean, and reactivates", () => {
    expect(patch([{ op: 'replace', value: { active: false } }]).active).toBe(false);
    expect(patch([{ op: 'Replace', path: 'active', value: 'False' }]).active).toBe(false);
    expect(patch([{ op: 'replace', path: 'active', value: 'True' }], { ...ADA, active: false }).active).toBe(true);
  });

  it("applies Entra's attribute updates: paths, dotted keys in a pathless value, the work e-mail", () => {
    const next = patch([
      { op: 'Replace', path: 'userName', value: 'ada.l@example.com' },
      { op: 'Add', path: 'displayName', value: 'Countess' },
      { op: 'Replace', value: { 'name.givenName': 'Augusta', 'name.familyName': 'King' } },
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'ada.l@example.com' },
      { op: 'Add', path: 'title', value: 'Analyst' },
      { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'R&D' },
      { op: 'Remove', path: 'externalId' },
    ]);
    expect(next).toEqual({
      ...ADA,
      userName: 'ada.l@example.com',
      displayName: 'Countess',
      givenName: 'Augusta',
      familyName: 'King',
      externalId: null,
      emails: [{ value: 'ada.l@example.com', type: 'work', primary: true }],
    });
  });

  it('adds, replaces and removes e-mails; a work address written where there is none is added', () => {
    const none = { ...ADA, emails: [] };
    expect(patch([{ op: 'replace', path: 'emails[type eq "work"].value', value: 'w@example.com' }], none).emails).toEqual([
      { value: 'w@example.com', type: 'work', primary: false },
    ]);
    expect(patch([{ op: 'add', path: 'emails', value: [{ value: 'h@example.com', type: 'home' }] }]).emails).toHaveLength(2);
    expect(patch([{ op: 'remove', path: 'emails[type eq "work"]' }]).emails).toEqual([]);
    expect(patch([{ op: 'replace', path: 'emails', value: [{ value: 'n@example.com' }] }]).emails).toEqual([
      { value: 'n@example.com', type: null, primary: false },
    ]);
  });

  it('ignores read-only attributes in a pathless value, as RFC 7644 says', () => {
    expect(patch([{ op: 'replace', value: { id: 'x', meta: {}, schemas: [], active: false } }]).active).toBe(false);
  });

  it.each([
    [[], 'invalidValue', 'Operations must be a non-empty array'],
    [[{ op: 'move', path: 'active', value: true }], 'invalidSyntax', 'Operations[0].op must be add, replace or remove'],
    [[{ op: 'remove' }], 'noTarget', 'Operations[0]: a remove needs a path'],
    [[{ op: 'replace', value: false }], 'invalidValue', 'Operations[0].value must be an object of attributes when there is no path'],
    [[{ op: 'replace', path: 'active' }], 'invalidValue', 'Operations[0].value is required'],
    [[{ op: 'replace', path: 5, value: 1 }], 'invalidPath', 'Operations[0].path must be a string'],
    [[{ op: 'replace', path: 'favouriteColour', value: 'red' }], 'invalidPath', 'User has no attribute "favouritecolour"'],
    [[{ op: 'replace', value: { favouriteColour: 'red' } }], 'invalidPath', 'User has no attribute "favouritecolour"'],
    [[{ op: 'replace', path: 'userName[value eq "x"]', value: 'y' }], 'invalidPath', 'username is not multi-valued: it takes no filter'],
    [[{ op: 'replace', path: 'emails[type eq "work"].colour', value: 'y' }], 'invalidPath', 'emails has no sub-attribute "colour"'],
    [[{ op: 'replace', path: 'id', value: 'x' }], 'mutability', 'id cannot be changed'],
    [[{ op: 'remove', path: 'userName' }], 'invalidValue', 'userName is required'],
    [[{ op: 'remove', path: 'active' }], 'invalidValue', 'active cannot be removed'],
    [[{ op: 'replace', path: 'active', value: 'maybe' }], 'invalidValue', 'active must be true or false'],
  ])('refuses %j before anything is looked up', (operations, scimType, detail) => {
    expect(refusal(() => compileUserPatch({ Operations: operations }))).toEqual({ status: 400, scimType, detail });
  });

  it('accepts and ignores attributes of the User schema Parley does not keep, filters included', () => {
    expect(patch([{ op: 'replace', path: 'phoneNumbers[type eq "work"].value', value: '+1 555' }])).toEqual(ADA);
  });

  it('refuses a filter that matches no address as noTarget, when applied', () => {
    const apply = compileUserPatch({
      Operations: [{ op: 'replace', path: 'emails[type eq "home" and primary eq true]', value: { value: 'x@y' } }],
    });
    expect(refusal(() => apply(ADA))).toEqual({ status: 400, scimType: 'noTarget', detail: 'emails: the filter matches no address' });
  });
});
