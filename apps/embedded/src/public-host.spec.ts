import { publicHost } from './public-host';

describe('publicHost', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['0.0.0.0', 'localhost'],
    ['::', 'localhost'],
    ['::1', '[::1]'],
    ['gateway.lan', 'gateway.lan'],
  ])('prints a server bound to %s as %s', (host, printed) => {
    expect(publicHost(host)).toBe(printed);
    expect(new URL(`http://${printed}:3000/api`).port).toBe('3000');
  });
});
