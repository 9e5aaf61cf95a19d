import { ServiceEnv, WithJwtSecret } from '@gw/platform';
import { IsInt, Max, Min } from 'class-validator';
import { PASSWORD_HASH_COST } from './users/password';

export class AuthEnv extends WithJwtSecret(ServiceEnv) {
  /**
   * log2 of scrypt's N for new password hashes (OWASP: 17). Only tests set it lower, to keep the
   * many sign-ups they make quick; a hash below the setting is upgraded at the next login.
   */
  @IsInt()
  @Min(10)
  @Max(20)
  PASSWORD_HASH_COST: number = PASSWORD_HASH_COST;
}
