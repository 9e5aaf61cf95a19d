import { DomainError } from '@gw/contracts';

/** What an audio file's own structure says of its length. */
export interface StatedLength {
  seconds: number;
  /**
   * True only where every decoder must hear exactly this (PCM samples counted from the data size):
   * then the hold is exact. Elsewhere the length comes from frames, timestamps or a header field
   * the sender wrote, and a provider may hear more.
   */
  exact: boolean;
}

/** A file whose structure contradicts itself or holds no audio: a 400 on `file`, raised before anything is reserved. */
export function invalidAudio(problem: string): DomainError {
  return new DomainError('invalid_request', problem, 'file');
}
