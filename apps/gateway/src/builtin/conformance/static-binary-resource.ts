import { Resource, type ResourceContents, type ResourceDefinition } from '@switchboard/catalog';
import { PNG_1X1_BASE64 } from './fixture-media';

/** `resources-read-binary`: a static binary resource (a 1×1 PNG as `blob`). */
export class StaticBinaryResource extends Resource {
  static override readonly definition: ResourceDefinition = {
    uri: 'test://static-binary',
    name: 'Static Binary Resource',
    description: 'A static binary resource (image) for testing',
    mimeType: 'image/png',
  };

  static override read(): ResourceContents[] {
    return [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_1X1_BASE64 }];
  }
}
