import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { CALLBACK_URL_MAX_LENGTH, type OAuthIssuedKey, type OAuthUserInfo } from '@gw/contracts';

/** POST /auth/token (DESIGN.md §5.7). Anything past the type is auth's to judge, with the interface's messages. */
export class OAuthTokenRequestDto {
  @ApiProperty({ description: 'The authorization code of the redirect' })
  @IsString()
  @MaxLength(256)
  code!: string;

  @ApiProperty({ description: 'The PKCE verifier: 43 to 128 characters of [A-Za-z0-9-._~]' })
  @IsString()
  @MaxLength(256)
  code_verifier!: string;

  @ApiProperty({ description: 'Exactly the callback_url of the authorization' })
  @IsString()
  @MaxLength(CALLBACK_URL_MAX_LENGTH)
  callback_url!: string;
}

export class OAuthIssuedKeyDto implements OAuthIssuedKey {
  @ApiProperty({ description: 'The API key; shown only in this answer', example: 'sk-gw-…' })
  key!: string;

  @ApiProperty({ format: 'uuid' })
  user_id!: string;
}

export class OAuthUserInfoDto implements OAuthUserInfo {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiPropertyOptional({ description: 'With the scope user:name' })
  name?: string;

  @ApiPropertyOptional({ description: 'With the scope user:email' })
  email?: string;
}
