import { Resource, type ResourceContents, type ResourceDefinition } from '@switchboard/catalog';

/** `resources-read-text`: a static text resource. */
export class StaticTextResource extends Resource {
  static override readonly definition: ResourceDefinition = {
    uri: 'test://static-text',
    name: 'Static Text Resource',
    description: 'A static text resource for testing',
    mimeType: 'text/plain',
  };

  static override read(): ResourceContents[] {
    return [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }];
  }
}
