import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import type { AccessToken, LoginRequest } from '@gw/contracts';
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH } from './auth.constants';

export class LoginDto implements LoginRequest {
  @ApiProperty({ example: 'ada@example.com' })
  @IsString()
  @IsEmail()
  @MaxLength(EMAIL_MAX_LENGTH)
  email!: string;

  @ApiProperty({ example: 'correct horse battery' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(PASSWORD_MAX_LENGTH)
  password!: string;

  @ApiPropertyOptional({
    example: '5d0f4c7e-2b1a-4f39-8f3e-8a6c2e1d9b40',
    format: 'uuid',
    description: 'The organization to act in; defaults to the first one the user joined',
  })
  @IsOptional()
  @IsUUID()
  organizationId?: string;
}

export class AccessTokenDto implements AccessToken {
  @ApiProperty({ example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl' })
  access_token!: string;

  @ApiProperty({ example: 'Bearer', enum: ['Bearer'] })
  token_type!: 'Bearer';

  @ApiProperty({ example: 3600, description: 'Seconds until the token expires' })
  expires_in!: number;
}
