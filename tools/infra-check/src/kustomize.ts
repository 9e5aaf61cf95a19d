import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export type Manifest = Record<string, any>;

export const kustomizationOf = (dir: string): Manifest =>
  parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Manifest;

/** Kinds that live outside a namespace: kustomize's `namespace` leaves them alone. */
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'PersistentVolume']);

/** Manifests of one kustomization, with the names of the ConfigMaps its generators made (hashed at the top only). */
type Rendered = { manifests: Manifest[]; generated: Set<string> };

/**
 * The manifests `kubectl apply -k <dir>` would apply, for what these manifests use of kustomize:
 * `resources` (files and directories with their own kustomization), `configMapGenerator` (`envs`,
 * `files` and `literals`, `behavior` create, merge or replace, `options.labels`) with kustomize's content-hash name suffix,
 * `patches` given by `path` (strategic merge: maps merge, lists of named items merge by name, other
 * lists are replaced), `namespace` and `images`. No cluster and no kustomize binary are needed, so the
 * checks run with the unit tests; `kustomize.spec.ts` compares it with kubectl's where one is installed.
 */
export function renderKustomization(dir: string): Manifest[] {
  const { manifests, generated } = accumulate(dir);
  // As kustomize does, names are hashed once, after every overlay has merged its data in.
  const renamed = new Map<string, string>();
  const hashed = manifests.map((m) => {
    if (m.kind !== 'ConfigMap' || !generated.has(m.metadata.name)) return m;
    const name = `${m.metadata.name}-${configMapHash(m)}`;
    renamed.set(m.metadata.name, name);
    return { ...m, metadata: { ...m.metadata, name } };
  });
  return hashed.map((m) => withConfigMapNames(m, renamed));
}

function accumulate(dir: string): Rendered {
  const kustomization = kustomizationOf(dir);
  const generated = new Set<string>();
  let manifests: Manifest[] = (kustomization.resources ?? []).flatMap((resource: string) => {
    const path = join(dir, resource);
    if (!statSync(path).isDirectory()) return readManifests(path);
    const inner = accumulate(path);
    for (const name of inner.generated) generated.add(name);
    return inner.manifests;
  });
  for (const generator of kustomization.configMapGenerator ?? []) {
    manifests = generateConfigMap(dir, generator, manifests);
    generated.add(generator.name);
  }
  for (const { path } of kustomization.patches ?? []) {
    for (const patch of readManifests(join(dir, path))) {
      const index = manifests.findIndex(
        (m) => m.kind === patch.kind && m.metadata?.name === patch.metadata?.name,
      );
      if (index < 0) throw new Error(`${path}: no ${patch.kind} ${patch.metadata?.name} to patch`);
      manifests[index] = strategicMerge(manifests[index], patch) as Manifest;
    }
  }
  if (kustomization.namespace) {
    manifests = manifests.map((m) =>
      CLUSTER_SCOPED.has(m.kind)
        ? m
        : { ...m, metadata: { ...m.metadata, namespace: kustomization.namespace } },
    );
  }
  for (const image of kustomization.images ?? []) manifests = manifests.map((m) => withImage(m, image));
  return { manifests, generated };
}

type ConfigMapGenerator = {
  name: string;
  behavior?: 'create' | 'merge' | 'replace';
  envs?: string[];
  files?: string[];
  literals?: string[];
  options?: { labels?: Record<string, string> };
};

/** The manifests with the generator's ConfigMap added (`create`) or merged into the one a base generated. */
function generateConfigMap(dir: string, generator: ConfigMapGenerator, manifests: Manifest[]): Manifest[] {
  const pairs = [
    ...(generator.envs ?? []).flatMap((file) => envFilePairs(readFileSync(join(dir, file), 'utf8'))),
    ...(generator.literals ?? []),
  ].map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`${generator.name}: not KEY=VALUE: ${pair}`);
    return [pair.slice(0, at), pair.slice(at + 1)] as const;
  });
  const data = Object.fromEntries([...pairs, ...(generator.files ?? []).map((file) => fileEntry(dir, file))]);
  const labels = generator.options?.labels;
  const behavior = generator.behavior ?? 'create';
  const index = manifests.findIndex((m) => m.kind === 'ConfigMap' && m.metadata.name === generator.name);
  if (behavior === 'create') {
    if (index >= 0) throw new Error(`ConfigMap ${generator.name} exists: merge or replace it`);
    const metadata = { name: generator.name, ...(labels ? { labels } : {}) };
    return [...manifests, { apiVersion: 'v1', kind: 'ConfigMap', metadata, data }];
  }
  if (index < 0) throw new Error(`no ConfigMap ${generator.name} to ${behavior}`);
  const base = manifests[index];
  const merged = {
    ...base,
    metadata: { ...base.metadata, labels: { ...base.metadata.labels, ...labels } },
    data: behavior === 'merge' ? { ...base.data, ...data } : data,
  };
  return manifests.map((m, i) => (i === index ? merged : m));
}

/** A `files` entry, `[key=]path`: the file's content under the key, or under its base name. */
function fileEntry(dir: string, entry: string): [string, string] {
  const at = entry.indexOf('=');
  const path = at < 0 ? entry : entry.slice(at + 1);
  return [at < 0 ? basename(path) : entry.slice(0, at), readFileSync(join(dir, path), 'utf8')];
}

/** `KEY=VALUE` lines of a kustomize env file: blank lines and `#` comments skipped, values taken as written. */
const envFilePairs = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trimStart())
    .filter((line) => line !== '' && !line.startsWith('#'));

/**
 * kustomize's name suffix for a ConfigMap (api/hasher, kustomize 5): the SHA-256 of Go's
 * `json.Marshal` of `{data, kind, name}` (keys sorted; `<`, `>`, `&`, U+2028 and U+2029 escaped as Go
 * escapes them), its first 10 hex digits with 0, 1, 3, a and e replaced so that the suffix never reads
 * as a word or a number. `name` is always empty: kustomize looks the name up as the single field
 * `metadata/name`, which no ConfigMap has (so two generators with equal data share a suffix).
 * `kubectl create configmap --append-hash` hashes the real name and gives other suffixes.
 */
export function configMapHash(configMap: Manifest): string {
  const encoded = {
    ...(configMap.binaryData ? { binaryData: sortedKeys(configMap.binaryData) } : {}),
    data: configMap.data ? sortedKeys(configMap.data) : '',
    kind: 'ConfigMap',
    name: '',
  };
  const json = JSON.stringify(encoded).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const hex = createHash('sha256').update(json).digest('hex');
  const swap: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex.slice(0, 10)].map((c) => swap[c] ?? c).join('');
}

const sortedKeys = (map: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

function readManifests(path: string): Manifest[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0].message}`);
      return doc.toJS() as Manifest | null;
    })
    .filter((m): m is Manifest => m !== null);
}

export function strategicMerge(base: unknown, patch: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(patch)) {
    const named = (list: unknown[]) => list.every((item) => typeof (item as Manifest)?.name === 'string');
    if (!named(base) || !named(patch)) return patch;
    const merged = base.map((item) => {
      const update = patch.find((p) => (p as Manifest).name === (item as Manifest).name);
      return update ? strategicMerge(item, update) : item;
    });
    const added = patch.filter((p) => !base.some((b) => (b as Manifest).name === (p as Manifest).name));
    // kubectl puts the items a patch adds before the ones it keeps.
    return [...added, ...merged];
  }
  if (isMap(base) && isMap(patch)) {
    const merged: Manifest = { ...base };
    for (const [key, value] of Object.entries(patch))
      merged[key] = key in base ? strategicMerge(base[key], value) : value;
    return merged;
  }
  return patch;
}

const isMap = (value: unknown): value is Manifest =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The pod spec of a workload (Deployment, StatefulSet, Job, CronJob), if it has one. */
const podSpecOf = (manifest: Manifest): Manifest | undefined =>
  manifest.spec?.template?.spec ?? manifest.spec?.jobTemplate?.spec?.template?.spec;

function withImage(manifest: Manifest, image: { name: string; newName?: string; newTag?: string }): Manifest {
  const pod = podSpecOf(manifest);
  if (!pod) return manifest;
  for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
    const [name] = String(container.image).split(':');
    if (name === image.name) container.image = `${image.newName ?? name}:${image.newTag ?? 'latest'}`;
  }
  return manifest;
}

/** A workload with its pods' references to renamed ConfigMaps (env, envFrom, volumes) following the new names. */
function withConfigMapNames(manifest: Manifest, renamed: Map<string, string>): Manifest {
  const pod = podSpecOf(manifest);
  if (!pod || renamed.size === 0) return manifest;
  const follow = (ref: Manifest | undefined) => {
    if (ref && renamed.has(ref.name)) ref.name = renamed.get(ref.name);
  };
  for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
    for (const env of container.env ?? []) follow(env.valueFrom?.configMapKeyRef);
    for (const source of container.envFrom ?? []) follow(source.configMapRef);
  }
  for (const volume of pod.volumes ?? []) {
    follow(volume.configMap);
    for (const source of volume.projected?.sources ?? []) follow(source.configMap);
  }
  return manifest;
}
