import { escapeHtml, html } from './html';
import { parseConsentForm, parseLimit } from './consent-form';

const ORG = '8f14e45f-ceea-467f-a0e6-3b8d5c2a1f00';

describe('parseConsentForm', () => {
  it('always grants user:id and the ticked scopes, in a fixed order', () => {
    expect(
      parseConsentForm({
        decision: 'approve',
        organizationId: ORG,
        scopes: ['user:email', 'user:name'],
        limitPeriod: 'none',
      }),
    ).toEqual({
      decision: 'approve',
      organizationId: ORG,
      scopes: ['user:id', 'user:name', 'user:email'],
      limits: [],
    });
    expect(
      parseConsentForm({ decision: 'approve', organizationId: ORG, scopes: 'user:email' }),
    ).toMatchObject({
      scopes: ['user:id', 'user:email'],
    });
  });

  it('refuses unknown scopes and a missing decision', () => {
    expect(parseConsentForm({ decision: 'approve', organizationId: ORG, scopes: 'admin' }).decision).toBe(
      'invalid',
    );
    expect(parseConsentForm({ organizationId: ORG }).decision).toBe('invalid');
  });

  it('declines without looking at the rest', () => {
    expect(parseConsentForm({ decision: 'decline', scopes: 'nonsense' })).toEqual({ decision: 'decline' });
  });
});

describe('parseLimit', () => {
  it('takes roubles with up to two decimals, a comma too', () => {
    expect(parseLimit('day', '500')).toEqual({ period: 'day', amount: '500' });
    expect(parseLimit('month', '99,50')).toEqual({ period: 'month', amount: '99.50' });
    expect(parseLimit('total', '0.01')).toEqual({ period: 'total', amount: '0.01' });
    expect(parseLimit('none', 'anything')).toBeNull();
  });

  it.each([
    ['three decimals', 'day', '1.234'],
    ['negative', 'day', '-5'],
    ['zero', 'week', '0'],
    ['absurd', 'month', '100000000'],
    ['exponent', 'day', '1e3'],
    ['empty', 'day', ''],
    ['unknown period', 'year', '10'],
  ])('refuses %s', (_why, period, amount) => expect(typeof parseLimit(period, amount)).toBe('string'));
});

describe('html', () => {
  it('escapes every interpolated value, attributes included', () => {
    const name = '<script>alert("x")</script>';
    expect(html`<p title="${name}">${name}</p>`.markup).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</p>',
    );
    expect(escapeHtml(`'&`)).toBe('&#39;&amp;');
  });

  it('nests markup made by html without escaping it twice', () => {
    const items = ['a<', 'b'].map((item) => html`<li>${item}</li>`);
    expect(
      html`<ul>
        ${items}
      </ul>`.markup.replace(/\s+/g, ''),
    ).toBe('<ul><li>a&lt;</li><li>b</li></ul>');
  });
});
