import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { BodyReads } from './body-reads';

const text = (read: Buffer | null) => (read === null ? null : read.toString());
/** Lets the body's written reads reach it. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('BodyReads', () => {
  it('hands each read to the reader waiting for it, in order, then null at the end', async () => {
    const body = new PassThrough();
    const reads = new BodyReads(body);
    const first = reads.next();
    body.write('data: one\n\n');
    expect(text(await first)).toBe('data: one\n\n');
    const second = reads.next();
    body.end('data: two\n\n');
    expect(text(await second)).toBe('data: two\n\n');
    expect(await reads.next()).toBeNull();
    expect(await reads.next()).toBeNull();
  });

  it('queues a read nobody waits for and pauses the body until it is taken', async () => {
    const body = new PassThrough();
    const reads = new BodyReads(body);
    body.write('a');
    await settle();
    expect(body.isPaused()).toBe(true);
    body.write('b');
    expect(text(await reads.next())).toBe('a');
    expect(body.isPaused()).toBe(false);
    expect(text(await reads.next())).toBe('b');
    body.end();
    expect(await reads.next()).toBeNull();
  });

  it("rejects with the body's failure once the reads before it are taken", async () => {
    const body = new PassThrough();
    const reads = new BodyReads(body);
    body.write('before');
    await settle();
    const closed = new Promise((resolve) => body.once('close', resolve));
    body.destroy(new Error('socket hang up'));
    await closed;
    expect(text(await reads.next())).toBe('before');
    await expect(reads.next()).rejects.toThrow('socket hang up');
  });

  it('rejects the waiting reader when the body is closed before its end', async () => {
    const body = new PassThrough();
    const reads = new BodyReads(body);
    const waiting = reads.next();
    body.destroy();
    await expect(waiting).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('once released, leaves the rest of the body flowing for whoever reads it next', async () => {
    const body = new PassThrough();
    const reads = new BodyReads(body);
    body.write('taken');
    body.write('left');
    expect(text(await reads.next())).toBe('taken');
    reads.release();
    const rest: string[] = [];
    body.on('data', (read: Buffer) => rest.push(read.toString()));
    body.end('after');
    await once(body, 'end');
    expect(rest.join('')).toContain('after');
    expect(body.listenerCount('data')).toBe(1);
  });
});
