import { isMethodOfEra } from './methods';

describe('isMethodOfEra', () => {
  it.each([
    'initialize',
    'ping',
    'logging/setLevel',
    'resources/subscribe',
    'resources/unsubscribe',
    'notifications/initialized',
    'notifications/roots/list_changed',
    'tasks/get',
  ])('says %s is removed in the modern era', (method) => {
    expect(isMethodOfEra(method, 'modern')).toBe(false);
    expect(isMethodOfEra(method, 'legacy')).toBe(true);
  });

  it.each(['server/discover', 'subscriptions/listen'])('says %s exists only in the modern era', (method) => {
    expect(isMethodOfEra(method, 'modern')).toBe(true);
    expect(isMethodOfEra(method, 'legacy')).toBe(false);
  });

  it.each([
    'tools/list',
    'tools/call',
    'prompts/list',
    'prompts/get',
    'resources/list',
    'resources/templates/list',
    'resources/read',
    'completion/complete',
    'notifications/cancelled',
    'notifications/progress',
  ])('says %s exists in both eras', (method) => {
    expect(isMethodOfEra(method, 'modern')).toBe(true);
    expect(isMethodOfEra(method, 'legacy')).toBe(true);
  });

  it('knows no unknown or differently cased method', () => {
    for (const era of ['legacy', 'modern'] as const) {
      expect(isMethodOfEra('unknown/method', era)).toBe(false);
      expect(isMethodOfEra('TOOLS/LIST', era)).toBe(false);
      expect(isMethodOfEra('', era)).toBe(false);
      expect(isMethodOfEra('constructor', era)).toBe(false);
    }
  });
});
