import { ScimException } from '../common/errors';
import { parseFilter, parsePatchPath } from './scim-path';

/** The SCIM error a call throws: status, scimType and detail. */
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

describe('parseFilter', () => {
  it('reads eq comparisons joined by and, names in any case, URNs taken off, JSON string escapes', () => {
    expect(parseFilter('userName eq "ada@example.com"')).toEqual([{ attribute: 'username', value: 'ada@example.com', group: 1 }]);
    expect(parseFilter('UserName EQ "a" and externalId eq "x\\"y"')).toEqual([
      { attribute: 'username', value: 'a', group: 1 },
      { attribute: 'externalid', value: 'x"y', group: 2 },
    ]);
    expect(parseFilter('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "a"')).toEqual([
      { attribute: 'username', value: 'a', group: 1 },
    ]);
    expect(parseFilter('emails.value eq "a@b.c"')).toEqual([{ attribute: 'emails.value', value: 'a@b.c', group: 1 }]);
    expect(parseFilter('active eq true')).toEqual([{ attribute: 'active', value: true, group: 1 }]);
  });

  it('reads a value filter in brackets as conditions on one value of the attribute', () => {
    expect(parseFilter('emails[type eq "work" and value eq "a@b.c"] and userName eq "u"')).toEqual([
      { attribute: 'emails.type', value: 'work', group: 1 },
      { attribute: 'emails.value', value: 'a@b.c', group: 1 },
      { attribute: 'username', value: 'u', group: 2 },
    ]);
    expect(parseFilter('members[value eq "id"]')).toEqual([{ attribute: 'members.value', value: 'id', group: 1 }]);
  });

  it.each([
    ['userName co "a"', 'the operator "co" is not supported (only eq)'],
    ['userName pr', 'the operator "pr" is not supported (only eq)'],
    ['userName eq', 'ends where a value was expected'],
    ['userName eq "a" or userName eq "b"', '"or" is not supported (only and)'],
    ['not (userName eq "a")', '"not" is not supported (only and)'],
    ['(userName eq "a")', 'parentheses are not supported'],
    ['userName eq "a', 'a string is not closed or holds a bad escape'],
    ['userName eq a', '"a" is not a value (a "string", true, false or null)'],
    ['userName eq 1', '"1" is not a value (a "string", true, false or null)'],
    ['"userName" eq "a"', '"userName" is not an attribute'],
    ['urn:example:thing:userName eq "a"', '"urn:example:thing:userName" is not an attribute'],
    ['emails[type eq "work"', 'ends where "]" or "and" was expected'],
    ['emails[type.x eq "work"]', '"type.x" in brackets must be a sub-attribute'],
    ['userName eq "a" userName', '"userName" was not expected'],
    ['userName eq "a" and', 'ends where an attribute was expected'],
    ['', 'it is empty'],
    ['userName eq "a" ; drop', 'unexpected character ";"'],
    [Array.from({ length: 11 }, (_v, i) => `userName eq "${i}"`).join(' and '), 'more than 10 comparisons'],
    [`userName eq "${'a'.repeat(1000)}"`, 'longer than 1000 characters'],
  ])('refuses %j as invalidFilter', (filter, detail) => {
    expect(refusal(() => parseFilter(filter))).toEqual({ status: 400, scimType: 'invalidFilter', detail: `Invalid filter: ${detail}` });
  });
});

describe('parsePatchPath', () => {
  it('reads attributes, sub-attributes, value filters and a sub-attribute after one', () => {
    expect(parsePatchPath('active')).toEqual({ attribute: 'active', filter: null, subAttribute: null });
    expect(parsePatchPath('name.givenName')).toEqual({ attribute: 'name.givenname', filter: null, subAttribute: null });
    expect(parsePatchPath('emails[type eq "work"].value')).toEqual({
      attribute: 'emails',
      filter: [{ attribute: 'type', value: 'work', group: 1 }],
      subAttribute: 'value',
    });
    expect(parsePatchPath('members[value eq "2819c223-7f76-453a-919d-413861904646"]')).toEqual({
      attribute: 'members',
      filter: [{ attribute: 'value', value: '2819c223-7f76-453a-919d-413861904646', group: 1 }],
      subAttribute: null,
    });
    expect(parsePatchPath('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager').attribute).toBe(
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:manager',
    );
  });

  it.each([
    ['name.givenName[value eq "x"]', 'a value filter follows a multi-valued attribute, not a sub-attribute'],
    ['emails[type eq "work"].value.x', '".value.x" is not a sub-attribute'],
    ['emails[type eq "work"] x', '"x" was not expected'],
    ['a b', '"b" was not expected'],
    ['na me', '"me" was not expected'],
    ['1abc', '"1abc" is not an attribute'],
  ])('refuses %j as invalidPath', (path, detail) => {
    expect(refusal(() => parsePatchPath(path))).toEqual({
      status: 400,
      scimType: 'invalidPath',
      detail: `Invalid path ${JSON.stringify(path)}: ${detail}`,
    });
  });
});
