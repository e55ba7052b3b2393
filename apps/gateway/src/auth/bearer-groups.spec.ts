import { groupsOf } from './bearer-verifier';

describe('groupsOf (a token groups claim, as caller.groups)', () => {
  it('reads the string entries of an array claim', () => {
    expect(groupsOf({ groups: ['finance', 7, 'ops', null] })).toEqual(['finance', 'ops']);
  });

  it('is undefined without the claim or when the claim is not an array', () => {
    expect(groupsOf({})).toBeUndefined();
    expect(groupsOf({ groups: 'finance' })).toBeUndefined();
  });

  it('bounds the count and the length of what it keeps', () => {
    const many = Array.from({ length: 100 }, (_, i) => `g${i}`);
    expect(groupsOf({ groups: many })).toHaveLength(64);
    expect(groupsOf({ groups: ['x'.repeat(257), 'ok'] })).toEqual(['ok']);
  });
});
