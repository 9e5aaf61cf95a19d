import { EnvValidationError, loadEnv, LogLevelEnv } from '@gw/platform';
import { WithPaidGeneration } from './paid-generation.env';

class PaidGenerationRunner extends WithPaidGeneration(LogLevelEnv) {}

describe('WithPaidGeneration', () => {
  it('relays the outbox every 5 s and renews holds every 15 s unless told otherwise', () => {
    expect(loadEnv(PaidGenerationRunner, {})).toMatchObject({
      OUTBOX_RELAY_INTERVAL_MS: 5_000,
      RESERVATION_RENEW_INTERVAL_MS: 15_000,
    });
    expect(
      loadEnv(PaidGenerationRunner, {
        OUTBOX_RELAY_INTERVAL_MS: '200',
        RESERVATION_RENEW_INTERVAL_MS: '1000',
      }),
    ).toMatchObject({ OUTBOX_RELAY_INTERVAL_MS: 200, RESERVATION_RENEW_INTERVAL_MS: 1_000 });
  });

  it.each(['OUTBOX_RELAY_INTERVAL_MS', 'RESERVATION_RENEW_INTERVAL_MS'])(
    'stops on %s below 100 ms, naming it',
    (name) => {
      expect(() => loadEnv(PaidGenerationRunner, { [name]: '99' })).toThrow(EnvValidationError);
      expect(() => loadEnv(PaidGenerationRunner, { [name]: '99' })).toThrow(
        new RegExp(`${name}: ${name} must not be less than 100`),
      );
    },
  );
});
