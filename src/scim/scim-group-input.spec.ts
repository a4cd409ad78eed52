import { ScimException } from '../common/errors';
import { compileGroupPatch, parseGroupResource, ScimGroupState } from './scim-group-input';

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

const A = '0190b5a0-0000-7000-8000-00000000000a';
const B = '0190b5a0-0000-7000-8000-00000000000b';
const GROUP: ScimGroupState = { displayName: 'Engineers', externalId: null, members: [A] };
const patch = (operations: unknown[]) => compileGroupPatch({ Operations: operations })(GROUP);

describe('parseGroupResource', () => {
  it('reads displayName, externalId and members (ids deduplicated, display and $ref ignored)', () => {
    expect(
      parseGroupResource({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
        displayName: 'Engineers',
        externalId: 'g-1',
        members: [{ value: A, display: 'ada' }, { value: A.toUpperCase() }, { value: B, $ref: 'x' }],
      }),
    ).toEqual({ displayName: 'Engineers', externalId: 'g-1', members: [A, B] });
  });

  it.each([
    [{}, 'displayName is required'],
    [{ displayName: 'x', members: [{ value: 7 }] }, "members[0].value must be a user's id"],
    [{ displayName: 'x', members: [{ value: 'ada' }] }, 'members[0].value: no user "ada" in this directory'],
  ])('refuses %j as invalidValue', (body, detail) => {
    expect(refusal(() => parseGroupResource(body))).toEqual({ status: 400, scimType: 'invalidValue', detail });
  });
});

describe('compileGroupPatch', () => {
  it("adds and removes members as Okta and Entra do, and renames with Okta's pathless replace", () => {
    expect(patch([{ op: 'Add', path: 'members', value: [{ value: B }] }]).members).toEqual([A, B]);
    expect(patch([{ op: 'remove', path: `members[value eq "${A}"]` }]).members).toEqual([]);
    expect(patch([{ op: 'Remove', path: 'members', value: [{ value: A }] }]).members).toEqual([]);
    expect(patch([{ op: 'remove', path: 'members' }]).members).toEqual([]);
    expect(patch([{ op: 'replace', path: 'members', value: [{ value: B }] }]).members).toEqual([B]);
    expect(patch([{ op: 'replace', value: { id: 'ignored', displayName: 'Builders' } }])).toEqual({ ...GROUP, displayName: 'Builders' });
    // Removing someone who is not a member changes nothing (a directory's retry).
    expect(patch([{ op: 'remove', path: `members[value eq "${B}"]` }]).members).toEqual([A]);
  });

  it.each([
    [[{ op: 'add', path: `members[value eq "${A}"]`, value: [] }], 'invalidPath', 'A members filter is only for remove'],
    [[{ op: 'remove', path: 'members[display eq "ada"]' }], 'invalidPath', 'A members filter names one member: members[value eq "<id>"]'],
    [[{ op: 'replace', path: 'members.value', value: A }], 'invalidPath', 'Group has no attribute "members.value"'],
    [[{ op: 'replace', path: 'owner', value: 'x' }], 'invalidPath', 'Group has no attribute "owner"'],
    [[{ op: 'replace', path: 'id', value: 'x' }], 'mutability', 'id cannot be changed'],
    [[{ op: 'remove', path: 'displayName' }], 'invalidValue', 'displayName is required'],
    [[{ op: 'remove' }], 'noTarget', 'Operations[0]: a remove needs a path'],
  ])('refuses %j', (operations, scimType, detail) => {
    expect(refusal(() => compileGroupPatch({ Operations: operations }))).toEqual({ status: 400, scimType, detail });
  });
});
