/** Longest client-influenced text a log line repeats: enough to recognise it, too little to flood or leak. */
export const MAX_LOGGED_TEXT = 64;
/** An error message may quote input (a header, a key, a property name); it is cut at this length. */
const MAX_LOGGED_ERROR_MESSAGE = 256;

/** The text itself when short, else its start, an ellipsis and how long it was. */
export function truncateForLog(text: string, max = MAX_LOGGED_TEXT): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** An error as one log entry: its name, its message truncated, then its stack frames. */
export function describeErrorForLog(error: unknown): string {
  if (!(error instanceof Error)) return truncateForLog(String(error), MAX_LOGGED_ERROR_MESSAGE);
  const header = `${error.name}: ${error.message}`;
  const summary = `${error.name}: ${truncateForLog(error.message, MAX_LOGGED_ERROR_MESSAGE)}`;
  const stack = error.stack ?? '';
  if (stack.startsWith(header)) return summary + stack.slice(header.length);
  const frames = stack.indexOf('\n    at ');
  return frames === -1 ? summary : summary + stack.slice(frames);
}
