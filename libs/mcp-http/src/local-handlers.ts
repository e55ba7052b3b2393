import { localHandlerKey, type LocalBundle, type PromptClass, type ResourceClass, type ResourceTemplateClass, type ToolClass } from '@switchboard/catalog';

/** Lookup tables from `{ kind: 'local', handler }` keys to in-process implementations, built once at start-up. */
export class LocalHandlers {
  private readonly tools = new Map<string, ToolClass>();
  private readonly resources = new Map<string, ResourceClass>();
  private readonly templates = new Map<string, ResourceTemplateClass>();
  private readonly prompts = new Map<string, PromptClass>();

  constructor(bundles: readonly LocalBundle[]) {
    for (const bundle of bundles) {
      for (const tool of bundle.tools) this.tools.set(localHandlerKey(bundle.id, tool.definition.name), tool);
      for (const res of bundle.resources ?? []) this.resources.set(localHandlerKey(bundle.id, res.definition.uri), res);
      for (const tpl of bundle.resourceTemplates ?? []) this.templates.set(localHandlerKey(bundle.id, tpl.definition.uriTemplate), tpl);
      for (const prompt of bundle.prompts ?? []) this.prompts.set(localHandlerKey(bundle.id, prompt.definition.name), prompt);
    }
  }

  tool(key: string): ToolClass | undefined {
    return this.tools.get(key);
  }
  resource(key: string): ResourceClass | undefined {
    return this.resources.get(key);
  }
  template(key: string): ResourceTemplateClass | undefined {
    return this.templates.get(key);
  }
  prompt(key: string): PromptClass | undefined {
    return this.prompts.get(key);
  }
}
