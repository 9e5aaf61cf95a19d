import { Body, Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { sleep, words } from '../chat/mock-answer';
import { hasCredentials } from '../chat/upstream-credentials';
import type { SolidImage } from './encoders/solid-image';
import { encodeImage, IMAGE_CONTENT_TYPES, imageFilePath, readImageFilePath } from './image-files';
import { answeredInjectedFailure, promptColour, readMediaPrompt } from './media-prompt';
import { imageOutputTokens, type OpenAiImageRequest, readImageRequest } from './mock-image-request';
import { sendOpenAiError } from './openai-error';

/** The alpha of a transparent background: half see-through, so the colour still shows. */
const TRANSPARENT_ALPHA = 128;

/**
 * `Mock Alpha`'s OpenAI Images API: `POST /images/generations` answers n images of one colour
 * (see media-prompt.ts) as base64 or as urls of `GET /images/files/...`, which, like a provider's
 * pre-signed url, needs no key.
 */
@ApiExcludeController()
@Controller('alpha/v1/images')
export class MockImagesController {
  @Post('generations')
  async generate(
    @Req() request: Request,
    @Body() body: OpenAiImageRequest,
    @Res() res: Response,
  ): Promise<void> {
    if (!hasCredentials(request)) return sendOpenAiError(res, 401, 'Missing API key');
    const read = readImageRequest(body ?? {});
    if (typeof read === 'string') return sendOpenAiError(res, 400, read);
    const prompt = readMediaPrompt(read.prompt);
    await sleep(prompt.faults.delayMs);
    if (answeredInjectedFailure(res, prompt.faults)) return;

    const image: SolidImage = {
      width: read.width,
      height: read.height,
      ...promptColour(prompt.text),
      alpha: read.transparent ? TRANSPARENT_ALPHA : 255,
    };
    const item =
      read.responseFormat === 'b64_json'
        ? { b64_json: encodeImage(image, read.outputFormat).toString('base64') }
        : {
            url: `${request.protocol}://${request.get('host')}/alpha/v1/images/files/${imageFilePath(image, read.outputFormat)}`,
          };
    const data = new Array(read.n).fill(read.classic ? { ...item, revised_prompt: prompt.text } : item);
    const created = Math.floor(Date.now() / 1000);
    if (read.classic) {
      res.status(200).json({ created, data });
      return;
    }
    const textTokens = words(prompt.text).length;
    const outputTokens = read.n * imageOutputTokens(read.quality, read.width, read.height);
    res.status(200).json({
      created,
      data,
      background: read.transparent ? 'transparent' : 'opaque',
      output_format: read.outputFormat,
      quality: read.quality === 'auto' ? 'medium' : read.quality,
      size: `${read.width}x${read.height}`,
      usage: {
        input_tokens: textTokens,
        input_tokens_details: { text_tokens: textTokens, image_tokens: 0 },
        output_tokens: outputTokens,
        total_tokens: textTokens + outputTokens,
      },
    });
  }

  @Get('files/:size/:file')
  file(@Param('size') size: string, @Param('file') file: string, @Res() res: Response): void {
    const named = readImageFilePath(size, file);
    if (!named) return sendOpenAiError(res, 404, 'No such image');
    res.status(200).type(IMAGE_CONTENT_TYPES[named.format]).send(encodeImage(named.image, named.format));
  }
}
