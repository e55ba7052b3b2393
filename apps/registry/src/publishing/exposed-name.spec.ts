import { ApiError } from '../http/api-error';
import { exposedName, sanitizeName } from './exposed-name';

describe('exposedName', () => {
  const base = { prefix: 'crm', field: 'body.items.0.exposedName' };

  it('keeps a free, valid upstream name', () => {
    expect(exposedName({ ...base, upstreamName: 'search', taken: new Set() })).toBe('search');
  });

  it('resolves a collision with another server by the deterministic server prefix', () => {
    expect(exposedName({ ...base, upstreamName: 'search', taken: new Set(['search']) })).toBe('crm_search');
    expect(exposedName({ ...base, upstreamName: 'search', taken: new Set(['search']) })).toBe('crm_search');
  });

  it('refuses an explicit name that is taken, naming the field', () => {
    const err = (() => {
      try {
        exposedName({ ...base, upstreamName: 'x', explicit: 'search', taken: new Set(['search']) });
      } catch (e) {
        return e;
      }
    })() as ApiError;
    expect(err.status).toBe(409);
    expect(err.field).toBe('body.items.0.exposedName');
  });

  it('refuses an explicit name that is too long or has invalid characters', () => {
    expect(() => exposedName({ ...base, upstreamName: 'x', explicit: 'a'.repeat(65), taken: new Set() })).toThrow(/1-64 characters/);
    expect(() => exposedName({ ...base, upstreamName: 'x', explicit: 'has space', taken: new Set() })).toThrow(/1-64 characters/);
  });

  it('sanitizes upstream names into the portable charset and length', () => {
    expect(sanitizeName('get user/profile')).toBe('get_user_profile');
    const long = sanitizeName('x'.repeat(100));
    expect(long).toHaveLength(64);
    expect(long).toBe(sanitizeName('x'.repeat(100)));
  });
});
