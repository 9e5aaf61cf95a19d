import { freePort } from '@gw/testing';
import { createServer, type Server } from 'node:http';
import { startEmbeddedGateway, type EmbeddedGateway } from './support/embedded-gateway';
import { http } from './support/gateway-http';
import { pcmWavHeader } from './support/wav';
import { finalGeneration, type Generation } from './support/media-api';

/**
 * User-given URLs the gateway takes besides a transcription's `file` (media reference `images` and
 * `videos`, chat `image_url` parts on either provider wire, Responses `input_image`, Messages
 * `image` blocks with a url source) go to the provider as given: no service fetches them. Each one
 * here points at a local server that records every request it gets, and the whole built app (the
 * embedded mode: gateway, inference, media and storage in one process, against mock-upstream, which
 * does not fetch them either) must leave it untouched. A transcription URL to the same server is
 * refused before any byte is sent.
 */
describe('user-given media and image URLs (embedded mode)', () => {
  let gateway: EmbeddedGateway;
  let recorder: Server;
  let base: string;
  const hits: string[] = [];

  beforeAll(async () => {
    recorder = createServer((request, response) => {
      hits.push(`${request.method} ${request.headers.host} ${request.url}`);
      if (request.url?.startsWith('/audio/')) {
        const samples = Buffer.alloc(32_000);
        return void response
          .writeHead(200, { 'content-type': 'audio/wav' })
          .end(Buffer.concat([pcmWavHeader(samples.length), samples]));
      }
      response.writeHead(200, { 'content-type': 'image/png' }).end('not really a png');
    });
    const port = await freePort();
    await new Promise<void>((resolve) => recorder.listen(port, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${port}`;
    // One name is allowed, for the last test's control: what the app does fetch, the recorder sees.
    gateway = await startEmbeddedGateway('ssrf', {
      MOCK_MEDIA_JOB_MS: '500',
      TRANSCRIPTION_URL_ALLOW_HOSTS: 'localhost',
    });
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await new Promise((resolve) => recorder?.close(resolve));
  });

  const post = (path: string, body: unknown) =>
    http('POST', `${gateway.api}${path}`, { token: gateway.apiKey, body });

  // The images route has no reference field (`images` there is a 400), so only /v1/media takes them.
  it('never fetches a reference image or video of a media generation', async () => {
    const created = [
      await post('/v1/media', {
        model: 'demo/video',
        async: true,
        params: {
          prompt: 'a lighthouse',
          duration: 3,
          images: [
            `${base}/media/video-reference.png`,
            base.replace('127.0.0.1', 'localhost') + '/media/by-name.png',
          ],
          videos: [`${base}/media/video-reference.mp4`],
        },
      }),
      await post('/v1/media', {
        model: 'demo/image',
        params: { prompt: 'a lighthouse', images: [`${base}/media/image-reference.png`] },
      }),
    ];
    for (const answer of created) expect(answer.status).toBe(200);
    const ids = created.map((answer) => (answer.body as Generation).id);
    const finals = await Promise.all(
      ids.map((id) => finalGeneration(gateway.api, gateway.apiKey, id, 60_000)),
    );
    expect(finals.map((generation) => generation.status)).toEqual(ids.map(() => 'completed'));
    expect(hits).toEqual([]);
  }, 90_000);

  it('never fetches an image url of a chat, a response or a message, on either provider wire', async () => {
    const image = (what: string) => `${base}/chat/${what}.png`;
    const answers = [
      ...['Mock Alpha', 'Mock Beta'].map((provider) =>
        post('/v1/chat/completions', {
          model: `demo/chat@provider=${provider}`,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is in this picture?' },
                { type: 'image_url', image_url: { url: image(`chat-${provider.replace(' ', '-')}`) } },
              ],
            },
          ],
        }),
      ),
      post('/v1/responses', {
        model: 'demo/chat',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is in this picture?' },
              { type: 'input_image', image_url: image('responses') },
            ],
          },
        ],
      }),
      post('/v1/messages', {
        model: 'demo/chat',
        max_tokens: 64,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in this picture?' },
              { type: 'image', source: { type: 'url', url: image('messages') } },
            ],
          },
        ],
      }),
    ];
    for (const answer of await Promise.all(answers)) expect(answer.status).toBe(200);
    expect(hits).toEqual([]);
  });

  it.each(['127.0.0.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]'])(
    'refuses a transcription file URL on %s without sending it a byte',
    async (host) => {
      const refused = await post('/v1/audio/transcriptions', {
        model: 'demo/whisper',
        file: `${base.replace('127.0.0.1', host)}/audio/tone.wav`,
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        error: { param: 'file', message: expect.stringContaining('not fetched') },
      });
      expect(hits).toEqual([]);
    },
  );

  it('does fetch from an allowed host, and the recorder sees it (the control of the tests above)', async () => {
    const fetched = await post('/v1/audio/transcriptions', {
      model: 'demo/whisper',
      file: `${base.replace('127.0.0.1', 'localhost')}/audio/allowed.wav`,
    });
    expect(fetched.status).toBe(200);
    expect(hits).toEqual([expect.stringMatching(/^GET localhost:\d+ \/audio\/allowed\.wav$/)]);
  });
});
