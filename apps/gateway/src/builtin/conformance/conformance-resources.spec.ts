import { PNG_1X1_BASE64 } from './fixture-media';
import { StaticBinaryResource } from './static-binary-resource';
import { StaticTextResource } from './static-text-resource';
import { TemplateDataResource } from './template-data-resource';
import { WatchedResource } from './watched-resource';


describe('conformance resources', () => {
  it('test://static-text reads as non-empty text/plain', async () => {
    const [c] = await StaticTextResource.read();
    expect(c).toMatchObject({ uri: 'test://static-text', mimeType: 'text/plain' });
    expect(c?.text?.length).toBeGreaterThan(0);
  });

  it('test://static-binary reads as a base64 blob', async () => {
    const [c] = await StaticBinaryResource.read();
    expect(c).toEqual({ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_1X1_BASE64 });
  });

  it('test://watched-resource is readable', async () => {
    const [c] = await WatchedResource.read();
    expect(c?.uri).toBe('test://watched-resource');
  });

  it('test://template/{id}/data matches an id and names it in the content', async () => {
    const uri = 'test://template/123/data';
    const vars = TemplateDataResource.match(uri);
    expect(vars).toEqual({ id: '123' });
    const [c] = await TemplateDataResource.read(uri, vars ?? {});
    expect(c).toMatchObject({ uri, mimeType: 'application/json' });
    expect(JSON.parse(c?.text ?? '{}')).toMatchObject({ id: '123' });
  });

  it('the template does not match other shapes', () => {
    expect(TemplateDataResource.match('test://template/1/2/data')).toBeNull();
    expect(TemplateDataResource.match('test://static-text')).toBeNull();
  });
});
