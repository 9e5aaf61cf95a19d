import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type {
  TranscriptionResult,
  TranscriptionSegment,
  TranscriptionUsage,
  TranscriptionWord,
} from '@gw/contracts';

export class TranscriptionSegmentDto implements TranscriptionSegment {
  @ApiProperty({ example: 0 })
  id!: number;

  @ApiPropertyOptional({ example: 0 })
  seek?: number;

  @ApiProperty({ example: 0, description: 'Seconds from the start' })
  start!: number;

  @ApiProperty({ example: 2.4 })
  end!: number;

  @ApiProperty({ example: 'Hello there.' })
  text!: string;

  @ApiPropertyOptional({ type: [Number] })
  tokens?: number[];

  @ApiPropertyOptional()
  temperature?: number;

  @ApiPropertyOptional()
  avg_logprob?: number;

  @ApiPropertyOptional()
  compression_ratio?: number;

  @ApiPropertyOptional()
  no_speech_prob?: number;

  @ApiPropertyOptional({ example: 'A', description: 'diarized_json only: who speaks' })
  speaker?: string;
}

export class TranscriptionWordDto implements TranscriptionWord {
  @ApiProperty({ example: 'Hello' })
  word!: string;

  @ApiProperty({ example: 0 })
  start!: number;

  @ApiProperty({ example: 0.4 })
  end!: number;
}

export class TranscriptionUsageDto implements TranscriptionUsage {
  @ApiProperty({ example: 2.4 })
  durationSeconds!: number;

  @ApiProperty({ example: 0.004, description: 'Roubles, rounded to 8 places' })
  cost!: number;

  @ApiProperty({ example: 0.004, description: 'The same as cost' })
  cost_rub!: number;
}

/** The interface's "Transcription result", as json, verbose_json and diarized_json answer it. */
export class TranscriptionResultDto implements TranscriptionResult {
  @ApiProperty({ example: 'Hello there.' })
  text!: string;

  @ApiPropertyOptional({ example: 'en', description: 'ISO-639-1' })
  language?: string;

  @ApiPropertyOptional({ example: 2.4, description: 'Seconds' })
  duration?: number;

  @ApiPropertyOptional({ type: [TranscriptionSegmentDto], description: 'verbose_json and diarized_json' })
  segments?: TranscriptionSegmentDto[];

  @ApiPropertyOptional({
    type: [TranscriptionWordDto],
    description: 'verbose_json with the word granularity',
  })
  words?: TranscriptionWordDto[];

  @ApiPropertyOptional({ type: 'array', items: { type: 'object' }, description: 'With include=logprobs' })
  logprobs?: unknown[];

  @ApiProperty({ example: 'demo/whisper' })
  model!: string;

  @ApiProperty({ type: TranscriptionUsageDto })
  usage!: TranscriptionUsageDto;
}
