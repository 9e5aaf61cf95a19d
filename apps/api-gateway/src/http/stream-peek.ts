import { PassThrough, type Readable } from 'node:stream';

/** The first `bytes` of a stream (fewer if it is shorter), and a stream of all of it. */
export function peek(stream: Readable, bytes: number): Promise<{ head: Buffer; body: Readable }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (ended: boolean) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', reject);
      stream.pause();
      const head = Buffer.concat(chunks);
      const body = new PassThrough();
      body.write(head);
      if (ended) body.end();
      else {
        stream.once('error', (err) => body.destroy(err));
        stream.pipe(body);
      }
      resolve({ head: head.subarray(0, bytes), body });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= bytes) finish(false);
    };
    const onEnd = () => finish(true);
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', reject);
  });
}
