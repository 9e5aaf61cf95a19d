/**
 * The fields without those set to null. OpenAI clients write null for an optional field they leave
 * unset, and the validation lets null through wherever a field is optional; a provider would take
 * it as a value (`dimensions: null` is refused upstream), so an explicit null means the same as an
 * omitted field. One level deep: the optional fields of a request body are its top-level fields.
 */
export function omitNullFields<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)) as T;
}
