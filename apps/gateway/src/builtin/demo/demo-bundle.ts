import type { LocalBundle } from '@switchboard/catalog';
import { AddNumbersTool } from './add-numbers-tool';
import { CountDownTool } from './count-down-tool';
import { EchoTool } from './echo-tool';

/** The demo tenant's in-process tools. */
export const demoBundle: LocalBundle = {
  id: 'demo',
  server: { name: 'switchboard-demo', version: '0.1.0', title: 'Switchboard demo tools' },
  tools: [EchoTool, AddNumbersTool, CountDownTool],
};
