import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, Repository } from 'typeorm';
import { UserEntity } from './user.entity';

const UNIQUE_VIOLATION = '23505';

@Injectable()
export class UserRepository {
  constructor(@InjectRepository(UserEntity) private readonly rows: Repository<UserEntity>) {}

  /** Null when the email is taken, decided by the unique index so concurrent sign-ups cannot both win. */
  async insert(user: Pick<UserEntity, 'email' | 'name' | 'passwordHash'>): Promise<UserEntity | null> {
    try {
      return await this.rows.save(this.rows.create(user));
    } catch (err) {
      if (isUniqueViolation(err)) return null;
      throw err;
    }
  }

  findById(id: string): Promise<UserEntity | null> {
    return this.rows.findOne({ where: { id } });
  }

  /** Compare-and-set, so a password changed meanwhile is never overwritten by the upgrade of the old one. */
  async replacePasswordHash(id: string, previous: string, next: string): Promise<void> {
    await this.rows.update({ id, passwordHash: previous }, { passwordHash: next });
  }

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.rows.createQueryBuilder('u').where('lower(u.email) = lower(:email)', { email }).getOne();
  }
}

export function isUniqueViolation(err: unknown): boolean {
  return (
    err instanceof QueryFailedError &&
    (err.driverError as { code?: string } | undefined)?.code === UNIQUE_VIOLATION
  );
}
