import { compileUriTemplate, type UriTemplateMatcher } from './compile-uri-template';
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

// One matcher per template class, compiled on first use.
const matchers = new WeakMap<object, UriTemplateMatcher>();

/** One class per resource template (RFC 6570 level-1 `{var}` templates). */
export abstract class ResourceTemplate {
  static readonly definition: ResourceTemplateDefinition;
  /**
   * Variables when `uri` matches the template, else null. `{var}` never spans `/`, `?` or `#`;
   * a template that wants that says `{+var}`. Values are percent-decoded.
   */
  static match(uri: string): Record<string, string> | null {
    let matcher = matchers.get(this);
    if (!matcher) {
      matcher = compileUriTemplate(this.definition.uriTemplate);
      matchers.set(this, matcher);
    }
    return matcher(uri);
  }
  static read(uri: string, vars: Record<string, string>, ctx: ToolContext): ResourceContents[] | Promise<ResourceContents[]> {
    void uri; void vars; void ctx;
    throw new Error(`${this.name} does not implement read()`);
  }
}

export type ResourceClass = typeof Resource;
export type ResourceTemplateClass = typeof ResourceTemplate;
