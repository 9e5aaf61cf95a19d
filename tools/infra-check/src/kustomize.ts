import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export type Manifest = Record<string, any>;

export const kustomizationOf = (dir: string): Manifest =>
  parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Manifest;

/** Kinds that live outside a namespace: kustomize's `namespace` leaves them alone. */
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'PersistentVolume']);

/**
 * The manifests `kubectl apply -k <dir>` would apply, for what these manifests use of kustomize:
 * `resources` (files and directories with their own kustomization), `patches` given by `path`
 * (strategic merge: maps merge, lists of named items merge by name, other lists are replaced),
 * `namespace` and `images`. No cluster and no kustomize binary are needed, so the checks run with
 * the unit tests; `kustomize.spec.ts` compares it with kubectl's where one is installed.
 */
export function renderKustomization(dir: string): Manifest[] {
  const kustomization = kustomizationOf(dir);
  let manifests: Manifest[] = (kustomization.resources ?? []).flatMap((resource: string) => {
    const path = join(dir, resource);
    return statSync(path).isDirectory() ? renderKustomization(path) : readManifests(path);
  });
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
  return manifests;
}

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

function withImage(manifest: Manifest, image: { name: string; newName?: string; newTag?: string }): Manifest {
  const pod = manifest.spec?.template?.spec ?? manifest.spec?.jobTemplate?.spec?.template?.spec;
  if (!pod) return manifest;
  for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
    const [name] = String(container.image).split(':');
    if (name === image.name) container.image = `${image.newName ?? name}:${image.newTag ?? 'latest'}`;
  }
  return manifest;
}
