import { MissingPriceError, sttCost, ttsCost } from './audio-pricing';
import { type Pricing } from './pricing';

const whisper: Pricing = { currency: 'RUB', stt_per_minute: '0.60', tts_per_million_characters: {} };
const withFee: Pricing = { ...whisper, per_request: '0.05' };
const tts: Pricing = { currency: 'RUB', tts_per_million_characters: '1500', stt_per_minute: {} };

describe('sttCost', () => {
  it.each([
    ['one minute', whisper, 60, '0.6'],
    ['a second is a sixtieth of the minute price', whisper, 1, '0.01'],
    ['2.5 s, not rounded up to a minute', whisper, 2.5, '0.025'],
    ['silence of zero length', whisper, 0, '0'],
    ['an hour', whisper, 3600, '36'],
    ['with a per-request fee', withFee, 30, '0.35'],
  ])('prices %s', (_label, pricing, seconds, expected) => {
    expect(sttCost(pricing, seconds).toFixed()).toBe(expected);
  });

  it('fails closed without a per-minute price', () => {
    expect(() => sttCost(tts, 10)).toThrow(MissingPriceError);
    expect(() => sttCost({ currency: 'RUB' }, 10)).toThrow('stt_per_minute');
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('refuses the duration %p', (seconds) => {
    expect(() => sttCost(whisper, seconds)).toThrow(RangeError);
  });
});

describe('ttsCost', () => {
  it.each([
    ['a million characters', tts, 1_000_000, '1500'],
    ['one character', tts, 1, '0.0015'],
    ['1234 characters', tts, 1234, '1.851'],
    ['none', tts, 0, '0'],
  ])('prices %s', (_label, pricing, characters, expected) => {
    expect(ttsCost(pricing, characters).toFixed()).toBe(expected);
  });

  it('fails closed without a per-character price', () => {
    expect(() => ttsCost(whisper, 10)).toThrow(new MissingPriceError('tts_per_million_characters'));
  });

  it('refuses a fractional count', () => {
    expect(() => ttsCost(tts, 1.5)).toThrow(RangeError);
  });
});
