import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, Length, MaxLength, MinLength } from 'class-validator';
import type { AuthUser, CreateUserRequest } from '@gw/contracts';
import { HasNoNul, IsNotBlank } from '../common/text-rules';
import {
  EMAIL_MAX_LENGTH,
  NAME_MAX_LENGTH,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
} from './auth.constants';

export class CreateUserDto implements CreateUserRequest {
  @ApiProperty({ example: 'ada@example.com', maxLength: EMAIL_MAX_LENGTH })
  @IsString()
  @IsEmail()
  @MaxLength(EMAIL_MAX_LENGTH)
  email!: string;

  @ApiProperty({
    example: 'correct horse battery',
    minLength: PASSWORD_MIN_LENGTH,
    maxLength: PASSWORD_MAX_LENGTH,
  })
  @IsString()
  @MinLength(PASSWORD_MIN_LENGTH)
  @MaxLength(PASSWORD_MAX_LENGTH)
  password!: string;

  @ApiProperty({ example: 'Ada Lovelace', minLength: 1, maxLength: NAME_MAX_LENGTH })
  @IsString()
  @IsNotBlank()
  @HasNoNul()
  @Length(1, NAME_MAX_LENGTH)
  name!: string;
}

export class UserDto implements AuthUser {
  @ApiProperty({ example: '0b6c3c1e-6f0a-4b8e-9d43-3f1f0f8a9c21', format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'ada@example.com' })
  email!: string;

  @ApiProperty({ example: 'Ada Lovelace' })
  name!: string;
}
