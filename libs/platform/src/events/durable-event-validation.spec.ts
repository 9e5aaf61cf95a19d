import { BillingEvents, type GenerationFinishedEvent } from '@gw/contracts';
import { generationFinishedEvent } from '@gw/testing';
import { MessageValidationPipe } from '../validation/message-validation.pipe';

// What a durable consumer hands its handler: the event as its contract's class accepts it. These
// are the events billing used to drop by hand before settling; the class now refuses them for every
// consumer alike.
const pipe = new MessageValidationPipe(BillingEvents.generationFinished.eventClass, 'strip');
const event = generationFinishedEvent('3f0c2a4e-8d1b-4f7a-9c7e-2b5d6e8f9a01', { cost: '0.5' });

describe('durable event validation', () => {
  it('accepts a well-formed event, including the exponent form decimal.js writes', async () => {
    await expect(pipe.transform(event)).resolves.toMatchObject({ cost: '0.5' });
    await expect(pipe.transform({ ...event, cost: '1e-8' })).resolves.toMatchObject({ cost: '1e-8' });
  });

  it.each([
    ['a float cost', { cost: 0.5 }, 'cost'],
    ['a negative cost', { cost: '-1' }, 'cost'],
    ['a cost numeric(20,8) cannot hold', { cost: '1e12' }, 'cost'],
    ['a cost that rounds past numeric(20,8)', { cost: '999999999999.999999999' }, 'cost'],
    ['an organization that is not a UUID', { organizationId: 'org-1' }, 'organizationId'],
    ['an unknown request type', { requestType: 'fax' }, 'requestType'],
    ['an unreadable date', { createdAt: 'yesterday' }, 'createdAt'],
    ['a fractional attempt count', { attemptsCount: 1.5 }, 'attemptsCount'],
    ['a duration an integer column cannot hold', { latencyMs: 2 ** 31 }, 'latencyMs'],
  ])('refuses %s, naming the field', async (_label, change, field) => {
    await expect(pipe.transform({ ...event, ...change })).rejects.toMatchObject({
      code: 'invalid_request',
      param: field,
    });
  });

  it('refuses what is not an object', async () => {
    await expect(pipe.transform('gen_1')).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('strips a field a newer producer added, so its money event is still settled', async () => {
    const settled = (await pipe.transform({ ...event, addedLater: true })) as GenerationFinishedEvent;
    expect(settled).not.toHaveProperty('addedLater');
    expect(settled.generationId).toBe(event.generationId);
  });
});
