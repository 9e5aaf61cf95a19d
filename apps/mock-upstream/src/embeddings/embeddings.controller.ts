import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { hasCredentials } from '../chat/upstream-credentials';
import { injectedFailure, MOCK_EMBEDDING_MODELS, mockEmbedding, mockEmbeddingTokens } from './mock-embedding';

interface OpenAiEmbeddingRequest {
  model?: unknown;
  input?: unknown;
  dimensions?: unknown;
  encoding_format?: unknown;
}

/** `Mock Alpha`: the OpenAI embeddings wire, with deterministic vectors. */
@ApiExcludeController()
@Controller('alpha/v1')
export class MockEmbeddingsController {
  @Post('embeddings')
  embeddings(@Req() request: Request, @Body() body: OpenAiEmbeddingRequest, @Res() res: Response): void {
    if (!hasCredentials(request)) return error(res, 401, 'Missing API key');
    const model = typeof body?.model === 'string' ? MOCK_EMBEDDING_MODELS[body.model] : undefined;
    if (!model) return error(res, 404, `Unknown embedding model ${String(body?.model)}`);
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((text) => typeof text === 'string')) {
      return error(res, 400, 'input must be a string or an array of strings');
    }
    if (body.encoding_format !== undefined && body.encoding_format !== 'float')
      return error(res, 400, 'Mock Alpha answers floats only');
    let dimensions = model.dimensions;
    if (body.dimensions !== undefined) {
      const wanted = body.dimensions;
      if (!model.takesDimensions) return error(res, 400, `${String(body.model)} does not take dimensions`);
      if (typeof wanted !== 'number' || !Number.isInteger(wanted) || wanted < 1 || wanted > model.dimensions)
        return error(res, 400, 'Bad dimensions');
      dimensions = wanted;
    }
    const failure = injectedFailure(inputs);
    if (failure !== null) return error(res, failure, `Injected failure ${failure}`);
    const texts = inputs;
    const tokens = texts.reduce((sum, text) => sum + mockEmbeddingTokens(text), 0);
    res.status(200).json({
      object: 'list',
      data: texts.map((text, index) => ({
        object: 'embedding',
        index,
        embedding: mockEmbedding(text, dimensions),
      })),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }
}

function error(res: Response, status: number, message: string): void {
  res.status(status).json({ error: { message, type: 'invalid_request_error', code: null, param: null } });
}
