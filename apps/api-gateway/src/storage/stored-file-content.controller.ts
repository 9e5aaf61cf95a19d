import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { DomainError } from '@gw/contracts';
import {
  BLOB_STORE,
  type BlobStore,
  blobKey,
  isBlobKey,
  LOCAL_BLOB_ROUTE,
  verifyBlobQuery,
} from '@gw/platform/blobs';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { API_GATEWAY_ENV, type ApiGatewayEnv } from '../api-gateway.env';

/**
 * Serves a file's signed url in the embedded mode (the local-disk store): no credentials, only the
 * signature, checked without state, so any replica serves any url. An expired or forged url, or a
 * deleted file, is a 404. The url is a capability: it is never logged.
 */
@ApiExcludeController()
@Controller(LOCAL_BLOB_ROUTE)
export class StoredFileContentController {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(API_GATEWAY_ENV) private readonly env: ApiGatewayEnv,
  ) {}

  @Get(':organizationId/:fileId')
  async serve(
    @Param('organizationId') organizationId: string,
    @Param('fileId') fileId: string,
    @Query() query: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const key = blobKey(organizationId, fileId);
    const genuine =
      this.env.BLOB_STORE === 'local' &&
      this.env.BLOB_URL_SECRET !== '' &&
      isBlobKey(key) &&
      verifyBlobQuery(this.env.BLOB_URL_SECRET, key, query);
    const object = genuine ? await this.blobs.get(key) : null;
    if (!object) throw new DomainError('not_found', 'File not found or its url has expired');
    response.status(200);
    response.setHeader('Content-Type', String(query['type']));
    response.setHeader('Content-Length', String(object.size));
    response.setHeader('Cache-Control', 'private, no-store');
    response.setHeader('X-Content-Type-Options', 'nosniff');
    await pipeline(object.body, response);
  }
}
