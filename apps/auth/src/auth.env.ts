import { ServiceEnv, WithJwtSecret } from '@gw/platform';
import { IsInt, Max, Min } from 'class-validator';

export class AuthEnv extends WithJwtSecret(ServiceEnv) {
  @IsInt()
  @Min(60)
  @Max(30 * 24 * 3600)
  JWT_TTL_SECONDS: number = 3600;
}
