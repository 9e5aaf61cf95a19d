import { isCodeChallenge, isCodeVerifier, s256Challenge, verifierMatchesChallenge } from './pkce';

/** RFC 7636, Appendix B. */
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE S256', () => {
  it('turns the RFC 7636 appendix B verifier into its challenge', () => {
    expect(s256Challenge(RFC_VERIFIER)).toBe(RFC_CHALLENGE);
    expect(verifierMatchesChallenge(RFC_VERIFIER, RFC_CHALLENGE)).toBe(true);
  });

  it('refuses another verifier, a changed challenge and the plain method', () => {
    expect(verifierMatchesChallenge(`${RFC_VERIFIER.slice(0, -1)}l`, RFC_CHALLENGE)).toBe(false);
    expect(verifierMatchesChallenge(RFC_VERIFIER, `${RFC_CHALLENGE.slice(0, -1)}N`)).toBe(false);
    // `plain` would send the verifier itself as the challenge.
    expect(verifierMatchesChallenge(RFC_VERIFIER, RFC_VERIFIER)).toBe(false);
  });

  it('takes verifiers of 43 to 128 unreserved characters only', () => {
    expect(isCodeVerifier('a'.repeat(43))).toBe(true);
    expect(isCodeVerifier('a'.repeat(128))).toBe(true);
    expect(isCodeVerifier('a'.repeat(42))).toBe(false);
    expect(isCodeVerifier('a'.repeat(129))).toBe(false);
    expect(isCodeVerifier(`${'a'.repeat(42)}~`)).toBe(true);
    expect(isCodeVerifier(`${'a'.repeat(42)}+`)).toBe(false);
    expect(verifierMatchesChallenge('short', s256Challenge('short'))).toBe(false);
  });

  it('takes challenges of 43 to 128 base64url characters without padding', () => {
    expect(isCodeChallenge(RFC_CHALLENGE)).toBe(true);
    expect(isCodeChallenge('A'.repeat(128))).toBe(true);
    expect(isCodeChallenge('A'.repeat(42))).toBe(false);
    expect(isCodeChallenge('A'.repeat(129))).toBe(false);
    expect(isCodeChallenge(`${RFC_CHALLENGE}=`)).toBe(false);
    expect(isCodeChallenge(RFC_CHALLENGE.replace('-', '+'))).toBe(false);
    expect(isCodeChallenge(RFC_CHALLENGE.replace('E', '/'))).toBe(false);
  });
});
