// Validates Kubernetes objects (a JSON array on stdin) against the schemas carried by
// kubernetes-models (ESM-only, hence a child process). Prints a JSON array of problems.
import { readFileSync } from 'node:fs';

const objects = JSON.parse(readFileSync(0, 'utf8'));
const problems = [];
for (const o of objects) {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : [null, o.apiVersion];
  const spec = group ? `kubernetes-models/${group}/${version}` : `kubernetes-models/${version}`;
  let Model;
  try {
    Model = (await import(spec))[o.kind];
  } catch (err) {
    problems.push(`${o.kind}/${o.metadata?.name}: no schema module ${spec} (${err.message})`);
    continue;
  }
  if (!Model) {
    problems.push(`${o.kind}/${o.metadata?.name}: ${spec} has no kind ${o.kind}`);
    continue;
  }
  try {
    new Model(o).validate();
  } catch (err) {
    problems.push(`${o.kind}/${o.metadata?.name}: ${err.message}`);
  }
}
process.stdout.write(JSON.stringify(problems));
