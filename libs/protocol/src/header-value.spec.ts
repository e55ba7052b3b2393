import { headerValue } from './header-value';

describe('headerValue', () => {
  it('returns a plain value unchanged', () => {
    expect(headerValue({ 'mcp-method': 'tools/list' }, 'mcp-method')).toBe('tools/list');
  });

  it('strips spaces and tabs around the value (RFC 9110 §5.5)', () => {
    expect(headerValue({ 'mcp-name': ' \t get_weather  ' }, 'mcp-name')).toBe('get_weather');
  });

  it('keeps inner whitespace', () => {
    expect(headerValue({ 'mcp-name': ' a b ' }, 'mcp-name')).toBe('a b');
  });

  it('treats absent, empty and whitespace-only values as absent', () => {
    expect(headerValue({}, 'mcp-name')).toBeUndefined();
    expect(headerValue({ 'mcp-name': '' }, 'mcp-name')).toBeUndefined();
    expect(headerValue({ 'mcp-name': '   ' }, 'mcp-name')).toBeUndefined();
    expect(headerValue({ 'mcp-name': undefined }, 'mcp-name')).toBeUndefined();
  });

  it('takes the first of repeated values', () => {
    expect(headerValue({ 'x-a': ['one', 'two'] }, 'x-a')).toBe('one');
    expect(headerValue({ 'x-a': [] }, 'x-a')).toBeUndefined();
  });
});
