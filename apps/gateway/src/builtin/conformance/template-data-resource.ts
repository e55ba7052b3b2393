import { ResourceTemplate, type ResourceContents, type ResourceTemplateDefinition } from '@switchboard/catalog';

/** `resources-templates-read`: `test://template/{id}/data`, whose content names the id. */
export class TemplateDataResource extends ResourceTemplate {
  static override readonly definition: ResourceTemplateDefinition = {
    uriTemplate: 'test://template/{id}/data',
    name: 'Resource Template',
    description: 'A resource template with an id parameter',
    mimeType: 'application/json',
  };

  static override read(uri: string, vars: Record<string, string>): ResourceContents[] {
    const id = vars.id ?? '';
    return [{ uri, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }];
  }
}
