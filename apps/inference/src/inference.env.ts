import { IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import { EnvSchema, ServiceEnv } from '@gw/platform';
import { WithBlobStore } from '@gw/platform/blobs';

/** The model catalogue; the embedded mode reads it too and hands it on. */
export function WithCatalogueFile<Base extends EnvSchema>(base: Base) {
  class CatalogueFileEnv extends base {
    /** A relative path is resolved against the working directory. */
    @IsString()
    @MinLength(1)
    CATALOGUE_FILE: string = 'config/catalogue.demo.json';
  }
  return CatalogueFileEnv;
}

/** The blob store holds the audio the gateway staged for a transcription, and payloads too large for the bus. */
export class InferenceEnv extends WithBlobStore(WithCatalogueFile(ServiceEnv)) {
  /** Substituted for `${MOCK_UPSTREAM_URL}` in the catalogue's base URLs. */
  @IsString()
  MOCK_UPSTREAM_URL: string = 'http://127.0.0.1:4010';

  /** The key the demo catalogue sends to mock-upstream (it checks only that one is sent). */
  @IsString()
  MOCK_UPSTREAM_API_KEY: string = 'mock-upstream-key';

  /** Longest wait for an upstream's response headers and between two chunks of its body. */
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  UPSTREAM_TIMEOUT_MS: number = 60_000;

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

  /** How often unpublished generation events are published again. */
  @IsInt()
  @Min(100)
  OUTBOX_RELAY_INTERVAL_MS: number = 5_000;

  /** How often the holds of running generations are renewed; billing's RESERVATION_LEASE_MS must be several times longer. */
  @IsInt()
  @Min(100)
  RESERVATION_RENEW_INTERVAL_MS: number = 15_000;

  /**
   * Age past which a transient blob-store object (staged audio, a claim-checked payload) is taken
   * for a crash's leftover and removed; far longer than any call.
   */
  @IsInt()
  @Min(60_000)
  TRANSIENT_BLOB_MAX_AGE_MS: number = 3_600_000;
}
