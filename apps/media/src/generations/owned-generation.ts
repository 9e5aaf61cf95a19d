import { DomainError, type Principal } from '@gw/contracts';
import type { MediaGenerationEntity } from './media-generation.entity';
import type { MediaGenerationRepository } from './media-generation.repository';

/** The organization's generation; another organization's id is as unknown as a missing one. */
export async function ownedGeneration(
  generations: MediaGenerationRepository,
  principal: Principal,
  id: string,
): Promise<MediaGenerationEntity> {
  const row = await generations.findOne(principal.organizationId, id);
  if (!row) throw new DomainError('not_found', `Generation ${id} not found`, 'id');
  return row;
}

/** The organization's generation, which must have completed (409 otherwise). */
export async function completedGeneration(
  generations: MediaGenerationRepository,
  principal: Principal,
  id: string,
): Promise<MediaGenerationEntity> {
  const row = await ownedGeneration(generations, principal, id);
  if (row.status !== 'completed') {
    throw new DomainError('conflict', `Generation ${id} is ${row.status}, not completed`, 'id');
  }
  return row;
}
