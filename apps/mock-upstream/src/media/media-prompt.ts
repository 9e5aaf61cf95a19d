import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { extractFaults, type MockFaults } from '../chat/mock-answer';
import type { Rgb } from './encoders/solid-image';
import { sendOpenAiError } from './openai-error';

/**
 * The markers of a media prompt (an image prompt, a video or extension prompt, the text to speak).
 *
 * Read by the chat grammar's `extractFaults`, with these meanings here:
 * - `[[fail:NNN]]` answers the creating call with status NNN; `[[retry-after:S]]` adds `Retry-After: S`;
 * - `[[delay:MS]]` (MS > 0) an image or speech answer waits MS before it is sent; a video job takes
 *   MS from creation to its end instead of `MOCK_MEDIA_JOB_MS`.
 * And one of its own:
 * - `[[job-fail]]` a video job ends `failed`, with an `error`, when its time is up.
 *
 * What the prompt then means is its text without the markers: the colour of every image and
 * video made from it (the first three bytes of its SHA-256) and the length of speech.
 */
export interface MediaPrompt {
  text: string;
  faults: MockFaults;
  jobFails: boolean;
}

const JOB_FAIL_MARKER = '[[job-fail]]';

export function readMediaPrompt(prompt: string): MediaPrompt {
  const { text, faults } = extractFaults(prompt);
  return {
    text: text.split(JOB_FAIL_MARKER).join(' ').replace(/\s+/g, ' ').trim(),
    faults,
    jobFails: text.includes(JOB_FAIL_MARKER),
  };
}

export function promptColour(text: string): Rgb {
  const [red, green, blue] = createHash('sha256').update(text).digest();
  return { red, green, blue };
}

/** Answers the injected failure, if the prompt asked for one; true when it did. */
export function answeredInjectedFailure(res: Response, faults: MockFaults): boolean {
  if (faults.retryAfterSeconds !== null) res.setHeader('retry-after', String(faults.retryAfterSeconds));
  if (faults.failStatus === null) return false;
  sendOpenAiError(res, faults.failStatus, `Injected failure ${faults.failStatus}`, 'upstream_failure');
  return true;
}

/** `WIDTHxHEIGHT` with even sides of 16 to 4096 pixels (even, so a video's 4:2:0 chroma fits). */
export function parseSize(value: string): { width: number; height: number } | null {
  const match = /^(\d{2,4})x(\d{2,4})$/.exec(value);
  if (!match) return null;
  const [width, height] = [Number(match[1]), Number(match[2])];
  const fits = (side: number) => side >= 16 && side <= 4096 && side % 2 === 0;
  return fits(width) && fits(height) ? { width, height } : null;
}
