import type { ResourceContents } from './content';
import type { ResourceDefinition, ResourceTemplateDefinition } from './definitions';
import type { ToolContext } from './tool-context';

/** One class per static resource. */
export abstract class Resource {
  static readonly definition: ResourceDefinition;
  static read(ctx: ToolContext): ResourceContents[] | Promise<ResourceContents[]> {
    void ctx;
    throw new Error(`${this.name} does not implement read()`);
  }
}

/** One class per resource template (RFC 6570 level-1 `{var}` templates). */
export abstract class ResourceTemplate {
  static readonly definition: ResourceTemplateDefinition;
  /** Variables when `uri` matches the template, else null. */
  static match(uri: string): Record<string, string> | null {
    void uri;
    throw new Error('not implemented');
  }
  static read(uri: string, vars: Record<string, string>, ctx: ToolContext): ResourceContents[] | Promise<ResourceContents[]> {
    void uri; void vars; void ctx;
    throw new Error(`${this.name} does not implement read()`);
  }
}

export type ResourceClass = typeof Resource;
export type ResourceTemplateClass = typeof ResourceTemplate;
