import { type MigrationInterface, type QueryRunner } from 'typeorm';
import { createPaidGenerationTables, dropPaidGenerationTables } from '@gw/paid-generation';

export class CreateInferenceTables1763900000000 implements MigrationInterface {
  name = 'CreateInferenceTables1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await createPaidGenerationTables(q, 'inference');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropPaidGenerationTables(q, 'inference');
  }
}
