/** An absolute http or https URL with a host. */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** `data:[<media type>][;<parameter>=<value>]*[;base64],<data>` as RFC 2397 writes it. */
const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(;[\w.+-]+=[^;,]*)*(;base64)?,/i;

/** Where an image may come from: a URL a provider can fetch, or the image itself as a data: URL. */
export function isImageUrl(value: unknown): value is string {
  return isHttpUrl(value) || (typeof value === 'string' && DATA_URL.test(value));
}
