import { compileUriTemplate } from './compile-uri-template';

describe('compileUriTemplate', () => {
  it('matches level-1 variables and returns them', () => {
    expect(compileUriTemplate('test://template/{id}/data')('test://template/123/data')).toEqual({ id: '123' });
    expect(compileUriTemplate('repo://{owner}/{repo}/readme')('repo://acme/widgets/readme')).toEqual({ owner: 'acme', repo: 'widgets' });
  });

  it('does not let {var} span a slash', () => {
    const m = compileUriTemplate('file:///{name}');
    expect(m('file:///a.txt')).toEqual({ name: 'a.txt' });
    expect(m('file:///dir/a.txt')).toBeNull();
  });

  it('lets {+var} span slashes when the template says so', () => {
    expect(compileUriTemplate('file:///{+path}')('file:///dir/a.txt')).toEqual({ path: 'dir/a.txt' });
  });

  it('percent-decodes values and rejects malformed escapes', () => {
    const m = compileUriTemplate('note://{title}');
    expect(m('note://hello%20world')).toEqual({ title: 'hello world' });
    expect(m('note://bad%E0')).toBeNull();
  });

  it('treats literal parts literally (regex characters are escaped)', () => {
    const m = compileUriTemplate('x://a.b/{id}');
    expect(m('x://a.b/1')).toEqual({ id: '1' });
    expect(m('x://aXb/1')).toBeNull();
  });

  it('does not match an empty variable or extra text', () => {
    const m = compileUriTemplate('test://template/{id}/data');
    expect(m('test://template//data')).toBeNull();
    expect(m('test://template/1/data/more')).toBeNull();
  });

  it('never matches templates with unsupported expressions', () => {
    expect(compileUriTemplate('search://{?q}')('search://?q=x')).toBeNull();
    expect(compileUriTemplate('pair://{a,b}')('pair://1,2')).toBeNull();
  });
});

describe('compileUriTemplate on the linear-time engine', () => {
  it('answers a failing match of many {+var} against a long URI (polynomial on a backtracking engine)', () => {
    const template = `x://${Array.from({ length: 12 }, (_, i) => `{+v${i}}`).join('')}!`;
    expect(compileUriTemplate(template)(`x://${'a'.repeat(5_000)}`)).toBeNull();
    expect(compileUriTemplate(template)(`x://${'a'.repeat(12)}!`)).toEqual(
      Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`v${i}`, 'a'])),
    );
  });
});
