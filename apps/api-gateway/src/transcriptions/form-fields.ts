/** The request fields that are arrays; in multipart they come as `name[0]`, `name[]` or a repeated `name`. */
export const ARRAY_FIELDS = [
  'timestamp_granularities',
  'include',
  'known_speaker_names',
  'known_speaker_references',
] as const;

const INDEXED = /^([A-Za-z_][A-Za-z0-9_]*)\[(\d*)\]$/;

/**
 * Multipart fields as typed request values: indexed names (`include[0]`, `include[]`, or already
 * nested by the parser, sparse or keyed by index) become arrays in index order, a single value of an
 * array field becomes a one-item array, `temperature` a number and `stream` a boolean where the text
 * says so. Anything else is left as it is, for validation to refuse by name.
 */
export function formFieldsToParams(fields: Record<string, unknown>): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  const indexed = new Map<string, Array<[number, unknown]>>();
  const push = (name: string, index: number, value: unknown) =>
    indexed.set(name, [...(indexed.get(name) ?? []), [index, value]]);
  for (const [key, value] of Object.entries(fields)) {
    const match = INDEXED.exec(key);
    if (match) {
      push(match[1], match[2] === '' ? Number.MAX_SAFE_INTEGER : Number(match[2]), value);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => push(key, index, item));
    } else if (isIndexObject(value)) {
      for (const [index, item] of Object.entries(value)) push(key, Number(index), item);
    } else {
      params[key] = value;
    }
  }
  for (const [name, items] of indexed) {
    const values = [...items]
      .sort((a, b) => a[0] - b[0])
      .flatMap(([, value]) => (Array.isArray(value) ? (value as unknown[]) : [value]))
      .filter((value) => value !== undefined);
    params[name] = values;
  }
  for (const name of ARRAY_FIELDS) {
    if (typeof params[name] === 'string') params[name] = [params[name]];
  }
  if (typeof params['temperature'] === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(params['temperature']))
    params['temperature'] = Number(params['temperature']);
  if (params['stream'] === 'true' || params['stream'] === 'false')
    params['stream'] = params['stream'] === 'true';
  return params;
}

function isIndexObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length > 0 &&
    Object.keys(value).every((key) => /^\d+$/.test(key))
  );
}
