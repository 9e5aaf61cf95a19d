/** Markup that is already safe: made only by `html` below, so text can never pass for it. */
export class SafeHtml {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

/**
 * A template tag that escapes every interpolated value unless it is SafeHtml (the output of
 * another `html`); arrays are joined, null, undefined and false leave nothing. Escaping covers
 * text and quoted attribute values alike.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let markup = strings[0];
  values.forEach((value, index) => {
    markup += render(value) + strings[index + 1];
  });
  return new SafeHtml(markup);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return escapeHtml(String(value));
  }
  // An object would print as [object Object]: a template bug, shown at once rather than on the page.
  throw new TypeError('html: only text, numbers, booleans and html can be interpolated');
}
