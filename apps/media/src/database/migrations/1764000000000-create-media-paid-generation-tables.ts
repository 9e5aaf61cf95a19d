import { type MigrationInterface, type QueryRunner } from 'typeorm';
import { createPaidGenerationTables, dropPaidGenerationTables } from '@gw/paid-generation';

/** The paid-generation pipeline's tables (libs/paid-generation) in media's own schema. */
export class CreateMediaPaidGenerationTables1764000000000 implements MigrationInterface {
  name = 'CreateMediaPaidGenerationTables1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await createPaidGenerationTables(q, 'media');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropPaidGenerationTables(q, 'media');
  }
}
