import { getMetadataStorage } from 'class-validator';

type MetadataStorage = ReturnType<typeof getMetadataStorage>;
type ValidationMetadata = Parameters<MetadataStorage['addValidationMetadata']>[0];
type Grouped = Record<string, ValidationMetadata[]>;

const MEMOIZED = Symbol.for('gw.validation-metadata-cache');

/**
 * class-validator works out a class's rules again for every object it validates: it filters its
 * metadata and walks every registered class for inheritance, then groups the rules by property,
 * once per nested object (each message of a chat body). The rules of a class do not change after
 * its decorators have run, so the answer is computed once per class and options and reused;
 * a rule registered later (a class defined after the first validation) clears the cache.
 */
export function memoizeValidationMetadata(storage: MetadataStorage = getMetadataStorage()): void {
  const marked = storage as MetadataStorage & { [MEMOIZED]?: true };
  if (marked[MEMOIZED]) return;
  marked[MEMOIZED] = true;

  const targetMetadatas = storage.getTargetValidationMetadatas.bind(storage);
  const groupByPropertyName = storage.groupByPropertyName.bind(storage);
  const addValidationMetadata = storage.addValidationMetadata.bind(storage);
  let byTarget = new Map<unknown, Map<string, ValidationMetadata[]>>();
  let grouped = new WeakMap<ValidationMetadata[], Grouped>();

  storage.addValidationMetadata = (metadata) => {
    byTarget = new Map();
    grouped = new WeakMap();
    addValidationMetadata(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const options = `${schema}\u0000${always}\u0000${strictGroups}\u0000${(groups ?? []).join('\u0000')}`;
    let forTarget = byTarget.get(target);
    if (!forTarget) byTarget.set(target, (forTarget = new Map<string, ValidationMetadata[]>()));
    let metadatas = forTarget.get(options);
    if (!metadatas) {
      metadatas = targetMetadatas(target, schema, always, strictGroups, groups);
      forTarget.set(options, metadatas);
    }
    return metadatas;
  };
  storage.groupByPropertyName = (metadatas) => {
    let byProperty = grouped.get(metadatas);
    if (!byProperty) {
      byProperty = groupByPropertyName(metadatas);
      grouped.set(metadatas, byProperty);
    }
    return byProperty;
  };
}
