import { expectEventually } from '@gw/testing';
import { randomBytes } from 'node:crypto';
import { DistributedStack } from './support/distributed-stack';
import { startEmbeddedGateway } from './support/embedded-gateway';
import { http, type HttpResult, seedOrganization, type SeededOrganization } from './support/gateway-http';

/** Short lifetimes so expiry is seen within the test. */
const STORAGE_ENV = { STORAGE_TEMP_UPLOAD_TTL_MS: '6000', STORAGE_SWEEP_INTERVAL_MS: '500' };
const ADMIN_TOKEN = 'e2e-storage-admin-token-0123456789';

interface StoredFile {
  id: string;
  fileType: string;
  mimeType: string;
  source: string;
  storagePolicy: string;
  url: string;
  size: number;
  createdAt: string;
  updatedAt: string;
  externalUserId: string | null;
  expiresAt: string | null;
}

const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), randomBytes(3000)]);
const wav = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([0x24, 0x08, 0, 0]),
  Buffer.from('WAVEfmt '),
  randomBytes(9000),
]);
const mp4 = Buffer.concat([Buffer.from('000000206674797069736f6d', 'hex'), randomBytes(70_000)]);

interface Target {
  api: string;
  adminToken: string;
}

/** The storage endpoints of the interface, black-box over HTTP, the same in both modes. */
function storageSuite(mode: string, open: () => Promise<Target>) {
  describe(`storage over HTTP (${mode})`, () => {
    let api: string;
    let org: SeededOrganization;
    let other: SeededOrganization;
    let adminJwt: string;
    let memberJwt: string;
    const uploaded: Record<'png' | 'wav' | 'mp4', StoredFile> = {} as never;

    const upload = async (
      token: string,
      bytes: Buffer,
      fields: Record<string, string> = {},
    ): Promise<HttpResult<StoredFile>> => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      form.append('file', new Blob([bytes]), 'upload.bin');
      const response = await fetch(`${api}/v1/storage/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      const text = await response.text();
      return {
        status: response.status,
        body: JSON.parse(text) as StoredFile,
        text,
        headers: response.headers,
      };
    };
    const list = (query: string, token = org.apiKey) =>
      http<{ data: StoredFile[]; meta: Record<string, number> }>('GET', `${api}/v1/storage/files${query}`, {
        token,
      });
    const login = async (email: string, password: string, organizationId: string) =>
      (await http('POST', `${api}/auth/login`, { body: { email, password, organizationId } })).body
        .access_token as string;

    beforeAll(async () => {
      const target = await open();
      api = target.api;
      [org, other] = await Promise.all([
        seedOrganization(api, target.adminToken, '10.00'),
        seedOrganization(api, target.adminToken, '10.00'),
      ]);
      adminJwt = await login(org.email, org.password, org.organizationId);
      const admin = { token: target.adminToken };
      const member = await http('POST', `${api}/admin/users`, {
        ...admin,
        body: { email: `member-${org.organizationId}@e2e.test`, password: 'member-password-1', name: 'M' },
      });
      await http('PUT', `${api}/admin/organizations/${org.organizationId}/members/${member.body.id}`, {
        ...admin,
        body: { role: 'member' },
      });
      memberJwt = await login(
        `member-${org.organizationId}@e2e.test`,
        'member-password-1',
        org.organizationId,
      );
    }, 180_000);

    it('uploads a PNG, a WAV and a small video, typed by content, with the policies asked for', async () => {
      const image = await upload(org.apiKey, png, { storagePolicy: 'PERMANENT', externalUserId: 'alice' });
      expect(image.status).toBe(201);
      expect(image.body).toMatchObject({
        fileType: 'IMAGE',
        mimeType: 'image/png',
        source: 'USER_UPLOAD',
        storagePolicy: 'PERMANENT',
        size: png.length,
        externalUserId: 'alice',
        expiresAt: null,
      });
      const audio = await upload(org.apiKey, wav);
      expect(audio.status).toBe(201);
      expect(audio.body).toMatchObject({
        fileType: 'AUDIO',
        storagePolicy: 'TEMP_UPLOAD',
        externalUserId: null,
      });
      expect(new Date(audio.body.expiresAt!).getTime()).toBeGreaterThan(Date.now());
      const video = await upload(adminJwt, mp4, { externalUserId: 'bob', storagePolicy: 'PERMANENT' });
      expect(video.status).toBe(201);
      expect(video.body).toMatchObject({ fileType: 'VIDEO', mimeType: 'video/mp4', size: mp4.length });
      Object.assign(uploaded, { png: image.body, wav: audio.body, mp4: video.body });
    });

    it('serves the exact bytes at each url without credentials', async () => {
      for (const [file, bytes] of [
        [uploaded.png, png],
        [uploaded.wav, wav],
        [uploaded.mp4, mp4],
      ] as const) {
        const response = await fetch(file.url);
        expect(response.status).toBe(200);
        expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
      }
    });

    it('refuses what is not media, a bad field, and a missing file', async () => {
      const text = await upload(org.apiKey, Buffer.from('just some text, not media at all'));
      expect(text.status).toBe(400);
      expect(text.body).toMatchObject({ error: { code: 'unsupported_media_type', param: 'file' } });
      const policy = await upload(org.apiKey, png, { storagePolicy: 'TEMP_GENERATION' });
      expect(policy.status).toBe(400);
      expect(policy.body).toMatchObject({ error: { param: 'storagePolicy' } });
      const long = await upload(org.apiKey, png, { externalUserId: 'x'.repeat(129) });
      expect(long.status).toBe(400);
      const unauthenticated = await fetch(`${api}/v1/storage/files`, {
        method: 'POST',
        body: new FormData(),
      });
      expect(unauthenticated.status).toBe(401);
      expect((await list('?limit=100')).body.meta.total).toBe(3);
    });

    it('lists with each filter and sort, in the {data, meta} form, and names a bad parameter', async () => {
      const ids = async (query: string) => (await list(query)).body.data.map((f) => f.id);
      expect(await ids('?fileType=IMAGE')).toEqual([uploaded.png.id]);
      expect(await ids('?fileType=AUDIO')).toEqual([uploaded.wav.id]);
      expect(await ids('?source=AI_GENERATION')).toEqual([]);
      expect((await ids('?source=USER_UPLOAD')).sort()).toEqual(
        [uploaded.png.id, uploaded.wav.id, uploaded.mp4.id].sort(),
      );
      expect(await ids('?storagePolicy=TEMP_UPLOAD')).toEqual([uploaded.wav.id]);
      expect(await ids('?externalUserId=bob')).toEqual([uploaded.mp4.id]);
      expect(await ids('?sortBy=size&sortOrder=asc')).toEqual([
        uploaded.png.id,
        uploaded.wav.id,
        uploaded.mp4.id,
      ]);
      expect(await ids('?sortBy=size&sortOrder=desc')).toEqual([
        uploaded.mp4.id,
        uploaded.wav.id,
        uploaded.png.id,
      ]);
      expect(await ids('?sortBy=createdAt&sortOrder=asc')).toEqual([
        uploaded.png.id,
        uploaded.wav.id,
        uploaded.mp4.id,
      ]);
      expect((await ids('?sortBy=externalUserId&sortOrder=asc')).slice(0, 2)).toEqual([
        uploaded.png.id,
        uploaded.mp4.id,
      ]);
      expect((await list('?sortBy=expiresAt')).status).toBe(200);
      const page = await list('?limit=2&page=2&sortBy=size&sortOrder=asc');
      expect(page.body.meta).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
      expect(page.body.data.map((f) => f.id)).toEqual([uploaded.mp4.id]);
      for (const [query, param] of [
        ['?limit=101', 'limit'],
        ['?page=0', 'page'],
        ['?fileType=PDF', 'fileType'],
        ['?sortBy=name', 'sortBy'],
        [`?externalUserId=${'y'.repeat(129)}`, 'externalUserId'],
      ]) {
        const bad = await list(query);
        expect(bad.status).toBe(400);
        expect(bad.body).toMatchObject({ error: { param } });
      }
      expect((await list('', other.apiKey)).body.meta.total).toBe(0);
    });

    it('gives an organization admin the statistics by type and policy, and refuses API keys and members', async () => {
      const stats = await http('GET', `${api}/v1/storage/stats`, { token: adminJwt });
      expect(stats.status).toBe(200);
      expect(stats.body).toMatchObject({
        usedBytes: png.length + wav.length + mp4.length,
        fileCount: 3,
        filesByType: { IMAGE: 1, VIDEO: 1, AUDIO: 1 },
        filesByPolicy: { TEMP_UPLOAD: 1, TEMP_GENERATION: 0, PERMANENT: 2 },
      });
      expect(typeof stats.body.totalBytes).toBe('number');
      expect(typeof stats.body.usagePercent).toBe('number');
      expect((await http('GET', `${api}/v1/storage/stats`, { token: org.apiKey })).status).toBe(403);
      expect((await http('GET', `${api}/v1/storage/stats`, { token: memberJwt })).status).toBe(403);
    });

    it("answers 404 for another organization's file, deletes a file, and its url stops working", async () => {
      const foreign = await http('DELETE', `${api}/v1/storage/files/${uploaded.png.id}`, {
        token: other.apiKey,
      });
      expect(foreign.status).toBe(404);
      const deleted = await http('DELETE', `${api}/v1/storage/files/${uploaded.png.id}`, {
        token: org.apiKey,
      });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ success: true });
      expect((await fetch(uploaded.png.url)).status).not.toBe(200);
      expect(
        (await http('DELETE', `${api}/v1/storage/files/${uploaded.png.id}`, { token: org.apiKey })).status,
      ).toBe(404);
    });

    it('removes a temporary file at its expiry: out of the list, its url stops', async () => {
      await expectEventually(
        async () => expect((await list('?storagePolicy=TEMP_UPLOAD')).body.meta.total).toBe(0),
        { timeoutMs: 20_000, intervalMs: 500 },
      );
      expect((await fetch(uploaded.wav.url)).status).not.toBe(200);
      expect((await fetch(uploaded.mp4.url)).status).toBe(200);
    });
  });
}

describe('storage', () => {
  let stopEmbedded: (() => Promise<void>) | undefined;
  afterAll(() => stopEmbedded?.());
  storageSuite('embedded', async () => {
    const gateway = await startEmbeddedGateway('storage', STORAGE_ENV);
    stopEmbedded = () => gateway.stop();
    return gateway;
  });
});

describe('storage', () => {
  const stack = new DistributedStack({
    database: 'e2e_storage',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'e2e-jwt-secret-0123456789',
    env: { storage: STORAGE_ENV },
  });
  afterAll(() => stack.stop());
  storageSuite('distributed, S3 on s3rver', async () => {
    await stack.start();
    return { api: stack.api, adminToken: ADMIN_TOKEN };
  });
});
