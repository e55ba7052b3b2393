// Rows of the SDK's example server; LIST_ROWS picks rows of server-everything by id.

import { until } from './harness';
import { NOTICE_DEADLINE_MS, type RowSpec, check, count, same, textOf, waitForNotice } from './reference-drivers';
import { EVERYTHING_ROWS_A } from './reference-everything-rows';
import { EVERYTHING_ROWS_B } from './reference-everything-rows-b';

const EVERYTHING_ROWS: RowSpec[] = [...EVERYTHING_ROWS_A, ...EVERYTHING_ROWS_B];

/** The rows every server shares (lists and definitions against the direct connection). */
export const LIST_ROWS = (ids: string[]): RowSpec[] => ids.map((id) => EVERYTHING_ROWS.find((r) => r.id === id)!);

export const EXAMPLE_ROWS: RowSpec[] = [
  ...LIST_ROWS(['tools-list', 'tool-definitions', 'task-support', 'prompts-list', 'resources-list']),
  {
    id: 'text',
    feature: 'text content (`greet`)',
    checks: 'the greeting for the name comes back',
    run: async (d) => {
      const text = textOf(await d.callTool('greet', { name: `Ada ${d.era}` }));
      check(text === `Hello, Ada ${d.era}!`, `got ${text}`);
    },
  },
  {
    id: 'resource-links',
    feature: 'resource links (`list-files`)',
    checks: 'three resource_link blocks between two texts, each readable through the gateway',
    run: async (d) => {
      const result = await d.callTool('list-files', { includeDescriptions: true });
      textOf(result);
      const types = (result.content ?? []).map((c) => c.type);
      check(same(types, ['text', 'resource_link', 'resource_link', 'resource_link', 'text']), `content ${types.join(', ')}`);
      for (const link of (result.content ?? []).filter((c) => c.type === 'resource_link')) {
        const [content] = await d.readResource(String(link.uri));
        check(content?.uri === link.uri && (content.text ?? '').length > 0, `read of ${String(link.uri)}`);
      }
    },
  },
  {
    id: 'static-read',
    feature: 'static resource reads',
    checks: 'each listed resource reads back with the server’s text',
    run: async (d, direct) => {
      const texts: string[] = [];
      for (const uri of direct.resources) texts.push(String((await d.readResource(uri))[0]?.text));
      check(texts.includes('Hello, world!') && texts.includes('This is the content of file 1'), `texts ${JSON.stringify(texts)}`);
      return count(direct.resources.length, 'resource');
    },
  },
  {
    id: 'prompt-args',
    feature: 'prompts/get with arguments (`greeting-template`)',
    checks: 'the argument reaches the prompt',
    run: async (d) => {
      const { messages } = await d.getPrompt('greeting-template', { name: 'Grace' });
      check(messages[0]?.content.text === 'Please greet Grace in a friendly manner.', `messages ${JSON.stringify(messages)}`);
    },
  },
  {
    id: 'elicitation-form',
    feature: 'form elicitation (`collect-user-info`, registered for every client)',
    checks: 'the form reaches the client and the accepted content reaches the server',
    run: async (d) => {
      const text = textOf(await d.callTool('collect-user-info', { infoType: 'contact' }));
      check(text.startsWith('Thank you! Collected contact information') && text.includes('Ada Lovelace'), `got ${text}`);
    },
  },
  {
    id: 'logging',
    feature: 'logging during a call (`multi-greet`)',
    checks: 'the server’s log messages sent while the call runs reach the client, then the greeting',
    run: async (d) => {
      await d.setLogLevel('debug');
      const text = textOf(await d.callTool('multi-greet', { name: 'Ada' }));
      check(text === 'Good morning, Ada!', `got ${text}`);
      await waitForNotice(d, 'notifications/message', 'a log message');
    },
  },
  {
    id: 'notification-stream',
    feature: 'notification stream (`start-notification-stream`)',
    checks: 'three periodic log messages reach the client',
    run: async (d) => {
      const before = d.notices.length;
      textOf(await d.callTool('start-notification-stream', { interval: 10, count: 3 }));
      try {
        await until(
          'three periodic notifications',
          () => d.notices.slice(before).filter((n) => String(n.params?.data).startsWith('Periodic notification')).length >= 3,
          NOTICE_DEADLINE_MS,
          25,
        );
      } catch {
        throw new Error(`${d.notices.length - before} of 3 periodic notifications within ${NOTICE_DEADLINE_MS} ms`);
      }
    },
  },
  {
    id: 'tasks',
    feature: 'tasks (`delay`, a task tool)',
    checks: 'a task-augmented call is created, polled to completed, and its result comes back',
    run: async (d) => {
      const text = textOf(await d.callAsTask('delay', { duration: 200 }));
      check(text === 'Completed 200ms delay', `got ${text}`);
    },
  },
  {
    id: 'task-elicitation',
    feature: 'elicitation inside a task (`collect-user-info-task`)',
    checks: 'the task asks the client for input (input_required), takes the answer and completes with it',
    run: async (d) => {
      const before = d.elicitations.length;
      const text = textOf(await d.callAsTask('collect-user-info-task', { infoType: 'contact' }));
      check(d.elicitations.length > before, 'the form never reached the client');
      check(text.startsWith('Collected contact info') && text.includes('Ada Lovelace'), `got ${text}`);
    },
  },
];
