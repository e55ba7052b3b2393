import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/** A rendered Kubernetes object (plain data). */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
} & Record<string, unknown>;

type Json = Record<string, unknown>;

interface Kustomization {
  namespace?: string;
  resources?: string[];
  patches?: Array<{ path: string }>;
  images?: Array<{ name: string; newName?: string; newTag?: string }>;
  labels?: Array<{ pairs: Record<string, string>; includeSelectors?: boolean }>;
}

const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'StorageClass',
]);

function loadYaml(file: string): Json[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as Json | null)
    .filter((d): d is Json => d !== null && typeof d === 'object');
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Strategic merge, the subset these manifests use: maps merge (null deletes), lists of named objects merge by `name`, other lists are replaced. */
export function strategicMerge(base: unknown, patch: unknown): unknown {
  if (isObject(base) && isObject(patch)) {
    const out: Json = { ...base };
    // A null in the patch deletes the key (strategic merge's delete directive for maps).
    for (const [k, v] of Object.entries(patch)) {
      if (v === null) delete out[k];
      else out[k] = k in base ? strategicMerge(base[k], v) : v;
    }
    return out;
  }
  if (Array.isArray(base) && Array.isArray(patch) && patch.length > 0 && patch.every((p) => isObject(p) && typeof p.name === 'string')) {
    const out = base.map((b) => {
      const p = patch.find((x) => isObject(b) && (x as Json).name === b.name);
      return p ? strategicMerge(b, p) : b;
    });
    // Items only in the patch come first, as kubectl's strategic merge orders them.
    const added = patch.filter((p) => !base.some((b) => isObject(b) && b.name === (p as Json).name));
    return [...added, ...out];
  }
  return patch;
}

function setImages(node: unknown, images: NonNullable<Kustomization['images']>): unknown {
  if (Array.isArray(node)) return node.map((n) => setImages(n, images));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'image' && typeof v === 'string') {
      const [name] = v.split(':');
      const rule = images.find((i) => i.name === name);
      out[k] = rule ? `${rule.newName ?? name}:${rule.newTag ?? v.split(':')[1] ?? 'latest'}` : v;
    } else out[k] = setImages(v, images);
  }
  return out;
}

/**
 * Renders a kustomization directory with the features these manifests use (resources,
 * namespace, strategic-merge patches, images, labels). The ops test compares it with
 * `kubectl kustomize` wherever kubectl exists, so it cannot silently drift.
 */
export function renderKustomize(dir: string): K8sObject[] {
  const k = loadYaml(path.join(dir, 'kustomization.yaml'))[0] as Kustomization;
  let objects: Json[] = [];
  for (const r of k.resources ?? []) {
    const p = path.join(dir, r);
    objects.push(...(statSync(p).isDirectory() ? renderKustomize(p) : loadYaml(p)));
  }
  for (const { path: file } of k.patches ?? []) {
    for (const patch of loadYaml(path.join(dir, file))) {
      const meta = patch.metadata as { name: string };
      const i = objects.findIndex((o) => o.kind === patch.kind && (o.metadata as { name: string }).name === meta.name);
      if (i < 0) throw new Error(`${dir}/${file}: no ${String(patch.kind)} ${meta.name} to patch`);
      objects[i] = strategicMerge(objects[i], patch) as Json;
    }
  }
  if (k.images) objects = objects.map((o) => setImages(o, k.images ?? []) as Json);
  for (const l of k.labels ?? []) {
    objects = objects.map((o) => {
      const meta = o.metadata as Json;
      return { ...o, metadata: { ...meta, labels: { ...(meta.labels as Json | undefined), ...l.pairs } } };
    });
  }
  if (k.namespace) {
    objects = objects.map((o) =>
      CLUSTER_SCOPED.has(String(o.kind)) ? o : { ...o, metadata: { ...(o.metadata as Json), namespace: k.namespace } },
    );
  }
  return objects as K8sObject[];
}
