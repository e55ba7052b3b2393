import { Resource, type ResourceContents, type ResourceDefinition } from '@switchboard/catalog';

/**
 * `resources-subscribe` / `resources-unsubscribe`: the resource the suite subscribes to. The
 * transport acknowledges (un)subscribe with `{}`; a stateless server never sends updates.
 */
export class WatchedResource extends Resource {
  static override readonly definition: ResourceDefinition = {
    uri: 'test://watched-resource',
    name: 'Watched Resource',
    description: 'A resource clients may subscribe to (it never changes)',
    mimeType: 'text/plain',
  };

  static override read(): ResourceContents[] {
    return [{ uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Watched resource content' }];
  }
}
