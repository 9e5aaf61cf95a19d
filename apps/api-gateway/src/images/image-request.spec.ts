import { plainToInstance } from 'class-transformer';
import { ImageGenerationRequestDto } from '@gw/dto';
import { imageGenerationRequest, pendingRecord } from './image-request';
import { apiKeyPrincipal } from '@gw/testing';

const principal = apiKeyPrincipal();

const body = (fields: Record<string, unknown>) => plainToInstance(ImageGenerationRequestDto, fields);

describe('an images API request as a media generation', () => {
  it("passes every image field as the model's params, and user as the files' end user", () => {
    expect(
      imageGenerationRequest(
        principal,
        body({
          model: 'demo/image',
          prompt: 'a fox',
          n: 2,
          size: '256x256',
          quality: 'low',
          response_format: 'b64_json',
          style: 'vivid',
          output_format: 'webp',
          background: 'opaque',
          output_compression: 80,
          user: 'alice',
        }),
      ),
    ).toEqual({
      principal,
      model: 'demo/image',
      params: {
        prompt: 'a fox',
        n: 2,
        size: '256x256',
        quality: 'low',
        style: 'vivid',
        output_format: 'webp',
        background: 'opaque',
        output_compression: 80,
      },
      async: false,
      surface: 'images',
      externalUserId: 'alice',
    });
  });

  it('leaves out what the client did not send, so that the model applies its defaults', () => {
    expect(
      imageGenerationRequest(principal, body({ model: 'demo/image-classic', prompt: 'a city' })),
    ).toEqual({
      principal,
      model: 'demo/image-classic',
      params: { prompt: 'a city' },
      async: false,
      surface: 'images',
    });
  });

  it('answers an unfinished generation as the pending record of the interface, whatever its stage', () => {
    expect(
      pendingRecord({
        id: 'gen-1',
        object: 'media.generation',
        status: 'processing',
        created: 1_763_830_000,
        model: 'demo/image',
      }),
    ).toEqual({ id: 'gen-1', status: 'pending', model: 'demo/image', created: 1_763_830_000 });
  });
});
