// Writes bench/discovery/catalog.json: the tool definitions of ten SaaS servers (public API shapes),
// exposed as `<server>_<tool>` the way a gateway multiplexing them would publish them.
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const SERVERS = {
  github: 'github',
  stripe: 'stripe',
  slack: 'slack',
  jira: 'jira',
  gcal: 'google_calendar',
  gmail: 'gmail',
  notion: 'notion',
  linear: 'linear',
  hubspot: 'hubspot',
  gdrive: 'google_drive',
};

function schemaOf(params) {
  const properties = {};
  const required = [];
  for (const raw of params
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [head, type = 'string'] = raw.split(':');
    const name = head.replace(/!$/, '');
    if (head.endsWith('!')) required.push(name);
    const words = name.replace(/_/g, ' ');
    const property = { type, description: `${words[0].toUpperCase()}${words.slice(1)}` };
    if (type === 'array') property.items = { type: 'string' };
    properties[name] = property;
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

export async function buildCatalog() {
  const tools = [];
  for (const file of readdirSync(join(here, 'services')).sort()) {
    const key = file.replace(/\.mjs$/, '');
    const server = SERVERS[key];
    const { default: specs } = await import(join(here, 'services', file));
    for (const [name, title, description, params] of specs) {
      tools.push({ server, definition: { name: `${server}_${name}`, title, description, inputSchema: schemaOf(params) } });
    }
  }
  return tools;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tools = await buildCatalog();
  writeFileSync(join(here, 'catalog.json'), `${JSON.stringify(tools, null, 1)}\n`);
  console.log(`wrote ${tools.length} tools`);
}
