import { type DynamicModule, Module } from '@nestjs/common';
import { MockImagesController } from './mock-images.controller';
import { MOCK_MEDIA_SETTINGS, type MockMediaSettings } from './mock-media-settings';
import { MockSpeechController } from './mock-speech.controller';
import { MockVideoJobs } from './mock-video-jobs.service';
import { MockVideosController } from './mock-videos.controller';

/** `Mock Alpha`'s OpenAI media wire: images, speech and video jobs. */
@Module({})
export class MockMediaModule {
  static register(settings: MockMediaSettings): DynamicModule {
    return {
      module: MockMediaModule,
      controllers: [MockImagesController, MockSpeechController, MockVideosController],
      providers: [{ provide: MOCK_MEDIA_SETTINGS, useValue: settings }, MockVideoJobs],
    };
  }
}
