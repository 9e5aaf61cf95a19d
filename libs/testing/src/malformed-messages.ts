/** One way to spoil a valid message, and the parameter the refusal should name (null: the message as a whole). */
export interface MalformedMessage {
  label: string;
  payload: unknown;
  param: string | null;
}

function wrongTypeFor(value: unknown): unknown {
  return typeof value === 'string' ? 42 : 'not-a-valid-value';
}

/**
 * The four faults every service must refuse with `invalid_request` before doing anything: `field`
 * missing, `field` of the wrong type, an unknown field, and a payload that is not an object.
 */
export function malformedMessages(valid: Record<string, unknown>, field: string): MalformedMessage[] {
  const { [field]: present, ...withoutField } = valid;
  return [
    { label: `without ${field}`, payload: withoutField, param: field },
    {
      label: `with ${field} of the wrong type`,
      payload: { ...valid, [field]: wrongTypeFor(present) },
      param: field,
    },
    { label: 'with an unknown field', payload: { ...valid, unexpected: true }, param: 'unexpected' },
    { label: 'that is not an object', payload: 'not an object', param: null },
  ];
}
