import type { K8sObject } from './render-kustomize';

type Env = Record<string, string>;
const byKey = (objects: K8sObject[]) => new Map(objects.map((o) => [`${o.kind}/${o.metadata.name}`, o]));

/** The environment a Deployment's containers get: envFrom ConfigMaps/Secrets, then `env` (values and key refs), as the kubelet resolves them. */
export function containerEnv(deployment: K8sObject, all: K8sObject[]): Env {
  const spec = (
    deployment as unknown as {
      spec: {
        template: {
          spec: {
            containers: Array<{
              env?: Array<{
                name: string;
                value?: string;
                valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
              }>;
              envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
            }>;
          };
        };
      };
    }
  ).spec;
  const objects = byKey(all);
  const env: Env = {};
  const dataOf = (kind: 'ConfigMap' | 'Secret', name: string): Record<string, string> => {
    const o = objects.get(`${kind}/${name}`) as { data?: Record<string, string>; stringData?: Record<string, string> } | undefined;
    if (!o) throw new Error(`${deployment.metadata.name} refers to a missing ${kind} ${name}`);
    if (kind === 'Secret')
      return {
        ...Object.fromEntries(Object.entries(o.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')])),
        ...o.stringData,
      };
    return o.data ?? {};
  };
  for (const c of spec.template.spec.containers) {
    for (const from of c.envFrom ?? []) {
      if (from.configMapRef) Object.assign(env, dataOf('ConfigMap', from.configMapRef.name));
      if (from.secretRef) Object.assign(env, dataOf('Secret', from.secretRef.name));
    }
    for (const e of c.env ?? []) {
      const ref = e.valueFrom?.secretKeyRef ?? e.valueFrom?.configMapKeyRef;
      if (ref) {
        const value = dataOf(e.valueFrom?.secretKeyRef ? 'Secret' : 'ConfigMap', ref.name)[ref.key];
        if (value === undefined) throw new Error(`${deployment.metadata.name}: ${e.name} refers to missing key ${ref.name}.${ref.key}`);
        env[e.name] = value;
      } else env[e.name] = e.value ?? '';
    }
  }
  return env;
}
