// Rows of server-everything (first half): what reference-servers.spec.ts drives through the gateway.

import { DATA_URI, type Json, type RowSpec, check, count, gunzipBase64, missingFrom, same, textOf } from './reference-drivers';

export const EVERYTHING_ROWS_A: RowSpec[] = [
  {
    id: 'tools-list',
    feature: 'tools/list',
    checks: 'the tool names equal those the same client sees connected directly',
    run: async (d, direct) => {
      const got = (await d.listTools()).map((t) => t.name);
      const want = direct.tools.map((t) => t.name).filter((n) => d.era === 'legacy' || !n.endsWith('-async'));
      const diff = missingFrom(want, got);
      check(!diff, diff);
      return count(got.length, 'tool');
    },
  },
  {
    id: 'tool-definitions',
    feature: 'tool definitions',
    checks: 'title, description, inputSchema, outputSchema and every declared annotation of each listed tool equal the upstream’s',
    run: async (d, direct) => {
      const fields = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;
      const changed: string[] = [];
      for (const tool of await d.listTools()) {
        const upstream = direct.tools.find((t) => t.name === tool.name);
        check(upstream, `${tool.name} is not the upstream's`);
        for (const f of fields) {
          // Hints the tenant added where the server declared none are the tenant's; every hint the server declared must stay.
          const kept =
            f === 'annotations'
              ? Object.entries((upstream.annotations ?? {}) as Json).every(([k, v]) => same((tool.annotations as Json | undefined)?.[k], v))
              : same(tool[f], upstream[f]);
          if (!kept) changed.push(`${tool.name}.${f}`);
        }
      }
      check(changed.length === 0, `changed: ${changed.join(', ')}`);
    },
  },
  {
    id: 'task-support',
    feature: 'task support in tool definitions (`execution`)',
    checks: 'every listed tool keeps the upstream’s execution.taskSupport (some tools require a task)',
    run: async (d, direct) => {
      const changed = (await d.listTools())
        .filter((t) => !same(t.execution, direct.tools.find((u) => u.name === t.name)?.execution))
        .map((t) => t.name);
      check(changed.length === 0, `execution missing or changed on ${changed.length} tools, e.g. ${changed.slice(0, 3).join(', ')}`);
    },
  },
  {
    id: 'prompts-list',
    feature: 'prompts/list',
    checks: 'the prompt names equal the upstream’s',
    run: async (d, direct) => {
      const diff = missingFrom(direct.prompts, await d.listPrompts());
      check(!diff, diff);
      return count(direct.prompts.length, 'prompt');
    },
  },
  {
    id: 'resources-list',
    feature: 'resources/list',
    checks: 'the static resource URIs equal the upstream’s',
    run: async (d, direct) => {
      const diff = missingFrom(direct.resources, await d.listResources());
      check(!diff, diff);
      return count(direct.resources.length, 'resource');
    },
  },
  {
    id: 'templates-list',
    feature: 'resources/templates/list',
    checks: 'the URI templates equal the upstream’s',
    run: async (d, direct) => {
      const diff = missingFrom(direct.templates, await d.listTemplates());
      check(!diff, diff);
      return count(direct.templates.length, 'template');
    },
  },
  {
    id: 'instructions',
    feature: 'server instructions',
    checks: 'the instructions the server gives at connection reach the client',
    run: async (d, direct) => {
      check(direct.instructions, 'the server gave no instructions');
      const got = d.instructions();
      check(got === direct.instructions, got ? `got other instructions: ${got.slice(0, 60)}` : 'the client got no instructions');
    },
  },
  {
    id: 'text',
    feature: 'text content (`echo`)',
    checks: 'the echoed text comes back',
    run: async (d) => {
      const text = textOf(await d.callTool('echo', { message: `hello from ${d.era}` }));
      check(text === `Echo: hello from ${d.era}`, `got ${text}`);
    },
  },
  {
    id: 'arguments',
    feature: 'typed arguments (`get-sum`)',
    checks: 'numeric arguments reach the tool: 2 + 3 = 5',
    run: async (d) => {
      const text = textOf(await d.callTool('get-sum', { a: 2, b: 3 }));
      check(text === 'The sum of 2 and 3 is 5.', `got ${text}`);
    },
  },
  {
    id: 'image',
    feature: 'image content (`get-tiny-image`)',
    checks: 'an image/png block with base64 data',
    run: async (d) => {
      const result = await d.callTool('get-tiny-image', {});
      textOf(result);
      const image = result.content?.find((c) => c.type === 'image');
      check(
        image && image.mimeType === 'image/png' && /^[A-Za-z0-9+/]+=*$/.test(String(image.data)),
        `no image/png block in ${JSON.stringify(result.content?.map((c) => c.type))}`,
      );
    },
  },
  {
    id: 'annotations',
    feature: 'content annotations (`get-annotated-message`)',
    checks: 'priority and audience on the text and on the image block',
    run: async (d) => {
      const result = await d.callTool('get-annotated-message', { messageType: 'error', includeImage: true });
      textOf(result);
      const [text, image] = result.content ?? [];
      check(
        same(text?.annotations, { priority: 1, audience: ['user', 'assistant'] }),
        `text annotations ${JSON.stringify(text?.annotations)}`,
      );
      check(
        image?.type === 'image' && same(image.annotations, { priority: 0.5, audience: ['user'] }),
        `image annotations ${JSON.stringify(image?.annotations)}`,
      );
    },
  },
  {
    id: 'structured',
    feature: 'structured content + outputSchema (`get-structured-content`)',
    checks: 'structuredContent matches the tool’s listed outputSchema',
    run: async (d) => {
      const tool = (await d.listTools()).find((t) => t.name === 'get-structured-content');
      check(tool?.outputSchema, 'no outputSchema listed');
      const result = await d.callTool('get-structured-content', { location: 'Chicago' });
      textOf(result);
      check(
        same(result.structuredContent, { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 }),
        `structuredContent ${JSON.stringify(result.structuredContent)}`,
      );
    },
  },
  {
    id: 'resource-links',
    feature: 'resource links (`get-resource-links`)',
    checks: 'four resource_link blocks, each readable through the gateway (they match the published templates)',
    run: async (d) => {
      const result = await d.callTool('get-resource-links', { count: 4 });
      textOf(result);
      const links = (result.content ?? []).filter((c) => c.type === 'resource_link');
      check(links.length === 4, `${links.length} resource links`);
      for (const link of links) {
        const [content] = await d.readResource(String(link.uri));
        check(content?.uri === link.uri, `read of ${String(link.uri)} answered ${content?.uri}`);
      }
    },
  },
  {
    id: 'embedded-resource',
    feature: 'embedded resources (`get-resource-reference`)',
    checks: 'a resource block carrying the text of demo://resource/dynamic/text/2',
    run: async (d) => {
      const result = await d.callTool('get-resource-reference', { resourceType: 'Text', resourceId: 2 });
      textOf(result);
      const embedded = result.content?.find((c) => c.type === 'resource')?.resource as { uri?: string; text?: string } | undefined;
      check(
        embedded?.uri === 'demo://resource/dynamic/text/2' && embedded.text?.startsWith('Resource 2: '),
        `embedded ${JSON.stringify(embedded)}`,
      );
    },
  },
  {
    id: 'embedded-blob',
    feature: 'embedded blob resources (`gzip-file-as-resource`, `outputType: resource`)',
    checks: 'the gzip blob of a data: URI comes back and unpacks to the original text',
    run: async (d) => {
      const result = await d.callTool('gzip-file-as-resource', { name: `embedded-${d.era}.gz`, data: DATA_URI, outputType: 'resource' });
      textOf(result);
      const embedded = result.content?.find((c) => c.type === 'resource')?.resource as { blob?: string } | undefined;
      check(embedded?.blob && gunzipBase64(embedded.blob) === 'hello interop', 'no gzip blob');
    },
  },
  {
    id: 'dynamic-resource',
    feature: 'resources the server creates (`gzip-file-as-resource`, `outputType: resourceLink`)',
    checks: 'the session resource behind the returned link reads back and unpacks to the original text',
    run: async (d) => {
      const result = await d.callTool('gzip-file-as-resource', { name: `linked-${d.era}.gz`, data: DATA_URI, outputType: 'resourceLink' });
      textOf(result);
      const link = result.content?.find((c) => c.type === 'resource_link');
      check(link?.uri === `demo://resource/session/linked-${d.era}.gz`, `link ${JSON.stringify(link)}`);
      const [content] = await d.readResource(String(link.uri));
      check(content?.blob && gunzipBase64(content.blob) === 'hello interop', 'read without the gzip blob');
    },
  },
  {
    id: 'tool-error',
    feature: 'tool errors',
    checks: '`get-resource-reference` with resourceId 0 answers isError with the server’s message',
    run: async (d) => {
      const result = await d.callTool('get-resource-reference', { resourceType: 'Text', resourceId: 0 });
      check(result.isError === true, 'no isError');
      const text = (result.content ?? []).map((c) => String(c.text)).join(' ');
      check(text.includes('Invalid resourceId: 0'), `text ${text}`);
    },
  },
  {
    id: 'env',
    feature: 'server environment (`get-env`)',
    checks: 'the server’s own environment comes back as JSON (it is started with PATH and PORT only)',
    run: async (d) => {
      const env = JSON.parse(textOf(await d.callTool('get-env', {}))) as Record<string, unknown>;
      check(typeof env.PORT === 'string', `keys ${Object.keys(env).join(', ')}`);
    },
  },
];
