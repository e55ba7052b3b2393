// Rows of server-everything (second half).

import { ROOT, type RowSpec, SAMPLED, check, count, same, textOf, waitForNotice } from './reference-drivers';

export const EVERYTHING_ROWS_B: RowSpec[] = [
  {
    id: 'progress',
    feature: 'progress notifications (`trigger-long-running-operation`)',
    checks: 'progress 1/3, 2/3, 3/3 reach the caller’s onprogress, then the result',
    run: async (d) => {
      const seen: string[] = [];
      // The v2 client reports its own input_required rounds through onprogress too (a round happens
      // when the server asks the caller for roots mid-call); only the server's progress counts here.
      const own = (p: { message?: string }) => p.message?.startsWith('Fulfilling input required') === true;
      const text = textOf(
        await d.callTool(
          'trigger-long-running-operation',
          { duration: 0.3, steps: 3 },
          (p) => void (own(p) || seen.push(`${p.progress}/${p.total}`)),
        ),
      );
      check(text.startsWith('Long running operation completed'), `got ${text}`);
      check(same(seen, ['1/3', '2/3', '3/3']), `progress ${seen.join(', ') || 'none'}`);
    },
  },
  {
    id: 'logging',
    feature: 'logging (`toggle-simulated-logging`)',
    checks: 'after logging/setLevel debug (2025-11-25), the server’s log messages reach the client',
    run: async (d) => {
      await d.setLogLevel('debug');
      textOf(await d.callTool('toggle-simulated-logging', {}));
      try {
        await waitForNotice(d, 'notifications/message', 'a log message');
      } finally {
        await d.callTool('toggle-simulated-logging', {}); // stops the server's 5 s timer
      }
    },
  },
  {
    id: 'subscribe',
    feature: 'resource subscriptions (`toggle-subscriber-updates`)',
    checks:
      'after subscribing to a URI (resources/subscribe; subscriptions/listen on 2026-07-28), notifications/resources/updated for it reach the client',
    run: async (d) => {
      const uri = 'demo://resource/static/document/features.md';
      const unsubscribe = await d.subscribe(uri);
      try {
        textOf(await d.callTool('toggle-subscriber-updates', {}));
        try {
          const notice = await waitForNotice(d, 'notifications/resources/updated', 'a resource update');
          check(notice.params?.uri === uri, `update for ${String(notice.params?.uri)}`);
        } finally {
          await d.callTool('toggle-subscriber-updates', {}); // stops the server's 5 s timer
        }
      } finally {
        await unsubscribe();
      }
    },
  },
  {
    id: 'sampling',
    feature: 'sampling (`trigger-sampling-request`)',
    checks: 'the server’s sampling/createMessage reaches the client and its answer reaches the server',
    run: async (d) => {
      const text = textOf(await d.callTool('trigger-sampling-request', { prompt: 'say something', maxTokens: 10 }));
      check(text.includes(SAMPLED), `got ${text}`);
    },
  },
  {
    id: 'elicitation-form',
    feature: 'form elicitation (`trigger-elicitation-request`)',
    checks: 'the form reaches the client and the accepted content reaches the server',
    run: async (d) => {
      const text = textOf(await d.callTool('trigger-elicitation-request', {}));
      check(text.includes('Name: Ada Lovelace'), `got ${text}`);
    },
  },
  {
    id: 'elicitation-url',
    feature: 'URL elicitation (`trigger-url-elicitation`)',
    checks: 'an elicitation/create in url mode reaches the client with the URL, and its accept reaches the server',
    run: async (d) => {
      const url = `https://example.com/consent/${d.era}`;
      const text = textOf(await d.callTool('trigger-url-elicitation', { url, elicitationId: `url-${d.era}` }));
      check(text.includes('User completed the URL elicitation'), `got ${text}`);
      check(
        d.elicitations.some((e) => e.mode === 'url' && e.url === url),
        'the client was not asked with the URL',
      );
    },
  },
  {
    id: 'elicitation-url-error',
    feature: 'URL elicitation required error (`trigger-url-elicitation`, `errorPath: true`)',
    checks: 'the call fails with -32042 carrying the prerequisite URL elicitation',
    run: async (d) => {
      let failure: { code?: unknown; data?: { elicitations?: Array<{ url?: string }> } } | undefined;
      try {
        const result = await d.callTool('trigger-url-elicitation', {
          url: 'https://example.com/prereq',
          elicitationId: `err-${d.era}`,
          errorPath: true,
        });
        textOf(result);
      } catch (err) {
        failure = err as typeof failure;
        if ((err as { code?: unknown }).code !== -32042) throw err;
      }
      check(failure?.code === -32042, 'the call did not fail with -32042');
      check(failure.data?.elicitations?.[0]?.url === 'https://modelcontextprotocol.io', `elicitations ${JSON.stringify(failure.data)}`);
    },
  },
  {
    id: 'roots',
    feature: 'roots (`get-roots-list`)',
    checks: 'the server’s roots/list reaches the client and the tool lists the client’s root',
    run: async (d) => {
      const text = textOf(await d.callTool('get-roots-list', {}));
      check(text.includes(ROOT.uri), `got ${text}`);
    },
  },
  {
    id: 'sampling-async',
    feature: 'client-side task sampling (`trigger-sampling-request-async`)',
    checks: 'the server’s task-capable sampling request is answered (synchronously) by the client',
    run: async (d) => {
      const text = textOf(await d.callTool('trigger-sampling-request-async', { prompt: 'say something', maxTokens: 10 }));
      check(text.includes(SAMPLED), `got ${text}`);
    },
  },
  {
    id: 'elicitation-async',
    feature: 'client-side task elicitation (`trigger-elicitation-request-async`)',
    checks: 'the server’s task-capable elicitation is answered (synchronously) by the client',
    run: async (d) => {
      const text = textOf(await d.callTool('trigger-elicitation-request-async', {}));
      check(text.includes('Ada Lovelace'), `got ${text}`);
    },
  },
  {
    id: 'tasks',
    feature: 'tasks (`simulate-research-query`, taskSupport required)',
    checks: 'a task-augmented call is created, polled to completed, and its result is the research report',
    run: async (d) => {
      const text = textOf(await d.callAsTask('simulate-research-query', { topic: `interop ${d.era}` }));
      check(text.includes(`# Research Report: interop ${d.era}`), `got ${text.slice(0, 120)}`);
    },
  },
  {
    id: 'prompt-simple',
    feature: 'prompts/get without arguments (`simple-prompt`)',
    checks: 'the prompt’s message comes back',
    run: async (d) => {
      const { messages } = await d.getPrompt('simple-prompt');
      check(messages[0]?.content.text === 'This is a simple prompt without arguments.', `messages ${JSON.stringify(messages)}`);
    },
  },
  {
    id: 'prompt-args',
    feature: 'prompts/get with arguments (`args-prompt`)',
    checks: 'required and optional arguments reach the prompt',
    run: async (d) => {
      const { messages } = await d.getPrompt('args-prompt', { city: 'Lisbon', state: 'PT' });
      check(messages[0]?.content.text === "What's weather in Lisbon, PT?", `messages ${JSON.stringify(messages)}`);
    },
  },
  {
    id: 'prompt-resource',
    feature: 'prompts with embedded resources (`resource-prompt`)',
    checks: 'the embedded blob resource comes back in the prompt’s messages',
    run: async (d) => {
      const { messages } = await d.getPrompt('resource-prompt', { resourceType: 'Blob', resourceId: '5' });
      const resource = messages[1]?.content.resource as { uri?: string; blob?: string } | undefined;
      check(
        resource?.uri === 'demo://resource/dynamic/blob/5' &&
          Buffer.from(String(resource.blob), 'base64').toString().startsWith('Resource 5: '),
        `messages ${JSON.stringify(messages).slice(0, 200)}`,
      );
    },
  },
  {
    id: 'static-read',
    feature: 'static resource reads',
    checks: 'every listed static document reads back as text/markdown',
    run: async (d, direct) => {
      for (const uri of direct.resources) {
        const [content] = await d.readResource(uri);
        check(content?.uri === uri && content.mimeType === 'text/markdown' && (content.text ?? '').length > 0, `read of ${uri}`);
      }
      return count(direct.resources.length, 'document');
    },
  },
  {
    id: 'template-read',
    feature: 'templated resource reads',
    checks: 'demo://resource/dynamic/text/7 and …/blob/8 read back with the server’s text and blob',
    run: async (d) => {
      const [text] = await d.readResource('demo://resource/dynamic/text/7');
      check(text?.text?.startsWith('Resource 7: This is a plaintext resource'), `text ${JSON.stringify(text)}`);
      const [blob] = await d.readResource('demo://resource/dynamic/blob/8');
      check(
        blob?.blob && Buffer.from(blob.blob, 'base64').toString().startsWith('Resource 8: This is a base64 blob'),
        `blob ${JSON.stringify(blob)}`,
      );
    },
  },
  {
    id: 'completion-prompt',
    feature: 'prompt argument completion (`completable-prompt`)',
    checks: 'department "Sa" completes to Sales; name "A" with department Engineering (context) to Alice',
    run: async (d) => {
      const ref = { type: 'ref/prompt', name: 'completable-prompt' };
      const departments = await d.complete(ref, { name: 'department', value: 'Sa' });
      check(same(departments, ['Sales']), `department values ${JSON.stringify(departments)}`);
      const names = await d.complete(ref, { name: 'name', value: 'A' }, { department: 'Engineering' });
      check(same(names, ['Alice']), `name values ${JSON.stringify(names)}`);
    },
  },
  {
    id: 'completion-template',
    feature: 'resource template argument completion',
    checks: 'resourceId "42" of demo://resource/dynamic/text/{resourceId} completes to 42',
    run: async (d) => {
      const values = await d.complete(
        { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' },
        { name: 'resourceId', value: '42' },
      );
      check(same(values, ['42']), `values ${JSON.stringify(values)}`);
    },
  },
];
