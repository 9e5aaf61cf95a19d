import { Injectable } from '@nestjs/common';
import { DomainError, MediaGeneration, Principal } from '@gw/contracts';
import { MediaGenerationEntity } from './media-generation.entity';
import { MediaGenerationRepository } from './media-generation.repository';

@Injectable()
export class MediaGenerationService {
  constructor(private readonly generations: MediaGenerationRepository) {}

  async get(principal: Principal, id: string): Promise<MediaGeneration> {
    const row = await this.generations.findOne(principal.organizationId, id);
    if (!row) throw new DomainError('not_found', `Generation ${id} not found`, 'id');
    return toMediaGeneration(row);
  }
}

function toMediaGeneration(row: MediaGenerationEntity): MediaGeneration {
  return {
    id: row.id,
    object: 'media.generation',
    status: row.status,
    created: Math.floor(row.createdAt.getTime() / 1000),
    model: row.model,
    ...(row.completedAt ? { completed_at: Math.floor(row.completedAt.getTime() / 1000) } : {}),
    ...(row.result ?? {}),
  };
}
