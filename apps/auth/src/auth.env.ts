import { ServiceEnv } from '@gw/platform';
import { IsInt, IsString, Max, Min, MinLength } from 'class-validator';

export class AuthEnv extends ServiceEnv {
  /** Signs the console JWTs (HS256); the gateway verifies them with the same secret. */
  @IsString()
  @MinLength(16)
  JWT_SECRET!: string;

  @IsInt()
  @Min(60)
  @Max(30 * 24 * 3600)
  JWT_TTL_SECONDS: number = 3600;
}
