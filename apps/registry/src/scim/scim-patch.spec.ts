import { ScimError } from '../http/scim-error';
import { applyScimPatch, MAX_PATCH_OPS, PATCH_SCHEMA, parsePatchPath } from './scim-patch';

const ops = (...Operations: unknown[]) => ({ schemas: [PATCH_SCHEMA], Operations });

describe('parsePatchPath', () => {
  it('reads attribute, sub-attribute, value-filter and extension paths', () => {
    expect(parsePatchPath('active')).toEqual({ attr: 'active' });
    expect(parsePatchPath('name.givenName')).toEqual({ attr: 'name', sub: 'givenName' });
    expect(parsePatchPath('emails[type eq "work"].value')).toEqual({
      attr: 'emails',
      filter: { sub: 'type', value: 'work' },
      sub: 'value',
    });
    expect(parsePatchPath('urn:ietf:params:scim:schemas:core:2.0:User:userName')).toEqual({ attr: 'userName' });
    expect(parsePatchPath('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department')).toEqual({
      attr: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
      sub: 'department',
    });
  });

  it('refuses other path shapes with invalidPath', () => {
    for (const p of ['emails[type co "x"]', 'a.b.c', '1abc', 'members[value eq x]']) {
      expect(() => parsePatchPath(p)).toThrow(expect.objectContaining({ scimType: 'invalidPath' }) as unknown as Error);
    }
  });
});

describe('applyScimPatch', () => {
  const user = { userName: 'bob', active: true, emails: [{ type: 'home', value: 'b@home' }] };
  const group = { displayName: 'Admins', members: [{ value: 'u1' }, { value: 'u2' }] };

  it('applies Okta pathless replaces and Entra ID capitalised ops', () => {
    expect(applyScimPatch(user, ops({ op: 'replace', value: { active: false } })).active).toBe(false);
    expect(applyScimPatch(user, ops({ op: 'Replace', path: 'active', value: 'False' })).active).toBe('False');
    const added = applyScimPatch(user, ops({ op: 'Add', path: 'emails[type eq "work"].value', value: 'b@work' }));
    expect(added.emails).toEqual([
      { type: 'home', value: 'b@home' },
      { type: 'work', value: 'b@work' },
    ]);
  });

  it('adds members without duplicates and removes them by filter or by value list', () => {
    expect(applyScimPatch(group, ops({ op: 'add', path: 'members', value: [{ value: 'u2' }, { value: 'u3' }] })).members).toEqual([
      { value: 'u1' },
      { value: 'u2' },
      { value: 'u3' },
    ]);
    expect(applyScimPatch(group, ops({ op: 'remove', path: 'members[value eq "u1"]' })).members).toEqual([{ value: 'u2' }]);
    expect(applyScimPatch(group, ops({ op: 'remove', path: 'members', value: [{ value: 'u2' }] })).members).toEqual([{ value: 'u1' }]);
    expect(applyScimPatch(group, ops({ op: 'remove', path: 'members' })).members).toBeUndefined();
  });

  it('leaves the input untouched', () => {
    applyScimPatch(group, ops({ op: 'remove', path: 'members' }));
    expect(group.members).toHaveLength(2);
  });

  it('refuses a body without the PatchOp schema, unknown ops and too many operations', () => {
    expect(() => applyScimPatch(user, { Operations: [{ op: 'add', path: 'x', value: 1 }] })).toThrow(ScimError);
    expect(() => applyScimPatch(user, ops({ op: 'copy', path: 'x' }))).toThrow(/Operations\[0\]\.op/);
    expect(() => applyScimPatch(user, ops({ op: 'remove' }))).toThrow(/remove needs a path/);
    const many = Array.from({ length: MAX_PATCH_OPS + 1 }, () => ({ op: 'replace', path: 'active', value: true }));
    expect(() => applyScimPatch(user, ops(...many))).toThrow(expect.objectContaining({ scimType: 'tooMany' }) as unknown as Error);
    expect(applyScimPatch(user, ops(...many.slice(1))).active).toBe(true);
  });
});
