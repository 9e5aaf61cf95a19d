import { IsInt, Max, Min } from 'class-validator';
import { WithCatalogue } from '@gw/catalogue';
import { WithPaidGeneration } from '@gw/paid-generation';
import { ServiceEnv } from '@gw/platform';
import { WithBlobStore } from '@gw/platform/blobs';

// The embedded mode takes the catalogue's file from the inference app's exports.
export { WithCatalogueFile } from '@gw/catalogue';

/** The blob store holds the audio the gateway staged for a transcription, and payloads too large for the bus. */
export class InferenceEnv extends WithBlobStore(WithPaidGeneration(WithCatalogue(ServiceEnv))) {
  /** Longest wait for an upstream's response headers and between two chunks of its body. */
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  UPSTREAM_TIMEOUT_MS: number = 60_000;

  /**
   * Connections to one provider's origin at once. A streamed answer holds one for as long as it
   * streams, so this bounds the answers one replica streams from a provider; more wait for a free one.
   */
  @IsInt()
  @Min(1)
  @Max(65_535)
  UPSTREAM_MAX_CONNECTIONS: number = 1_024;

  /**
   * How long a stream waits for a provider's first output before trying the next provider; a
   * provider's catalogue `routing.firstTokenTimeoutMs` overrides it.
   */
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  FIRST_TOKEN_TIMEOUT_MS: number = 30_000;

  /** The least completion a chat's first hold must cover (else 402), or less where the model's answers are shorter; the hold grows as the answer does. */
  @IsInt()
  @Min(1)
  MIN_COMPLETION_TOKENS: number = 16;

  /** The completion a chat's first hold covers until this process has seen the model answer; then its recent length and spread. */
  @IsInt()
  @Min(1)
  FIRST_HOLD_COMPLETION_TOKENS: number = 256;

  /**
   * Age past which a transient blob-store object (staged audio, a claim-checked payload) is taken
   * for a crash's leftover and removed; far longer than any call.
   */
  @IsInt()
  @Min(60_000)
  TRANSIENT_BLOB_MAX_AGE_MS: number = 3_600_000;
}
