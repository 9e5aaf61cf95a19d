import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsNumber, IsOptional, IsString, MaxLength } from 'class-validator';

/**
 * `POST /v1/audio/speech`, as OpenAI's `audio.speech.create` sends it. What values a model takes
 * (voices, formats, speed range, input length) are its catalogue descriptors', checked by the media service.
 */
export class SpeechRequestDto {
  @ApiProperty({ example: 'demo/tts', description: 'An audio (TTS) model of GET /v1/models' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  model!: string;

  @ApiProperty({
    example: 'Hello from the gateway!',
    description: "The text to speak (the model's `prompt`)",
  })
  @IsString()
  @IsNotEmpty()
  input!: string;

  @ApiProperty({ example: 'alloy', description: "One of the model's `voice` values" })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  voice!: string;

  @ApiPropertyOptional({
    example: 'mp3',
    description:
      "The audio format (the model's `output_format`; demo/tts: mp3, wav, ogg); its default when absent",
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(20)
  response_format?: string;

  @ApiPropertyOptional({ example: 1, description: "Within the model's `speed` range" })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  speed?: number;

  @ApiPropertyOptional({ description: 'Voice instructions; a model that does not take them ignores them' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  instructions?: string;

  @ApiPropertyOptional({ enum: ['audio'], description: 'Only `audio`: the bytes in the body' })
  @IsOptional()
  @IsIn(['audio'])
  stream_format?: 'audio';
}
