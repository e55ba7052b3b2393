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

// Where a template class keeps its matcher (compiled on first use): on the class itself.
const MATCHER = Symbol('matcher');

/** One class per resource template (RFC 6570 level-1 `{var}` templates). */
export abstract class ResourceTemplate {
  static readonly definition: ResourceTemplateDefinition;
  /**
   * Variables when `uri` matches the template, else null. `{var}` never spans `/`, `?` or `#`;
   * a template that wants that says `{+var}`. Values are percent-decoded.
   */
  static match(uri: string): Record<string, string> | null {
    // Own property only: a subclass must not reuse its parent's matcher.
    let matcher = Object.hasOwn(this, MATCHER) ? (this as unknown as Record<symbol, UriTemplateMatcher>)[MATCHER] : undefined;
    if (!matcher) {
      matcher = compileUriTemplate(this.definition.uriTemplate);
      Object.defineProperty(this, MATCHER, { value: matcher });
    }
    return matcher(uri);
  }
  static read(uri: string, vars: Record<string, string>, ctx: ToolContext): ResourceContents[] | Promise<ResourceContents[]> {
    void uri;
    void vars;
    void ctx;
    throw new Error(`${this.name} does not implement read()`);
  }
}

export type ResourceClass = typeof Resource;
export type ResourceTemplateClass = typeof ResourceTemplate;
