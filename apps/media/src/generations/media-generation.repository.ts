import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { MediaGenerationEntity } from './media-generation.entity';

@Injectable()
export class MediaGenerationRepository {
  constructor(
    @InjectRepository(MediaGenerationEntity) private readonly rows: Repository<MediaGenerationEntity>,
  ) {}

  /** The organization is part of every lookup: another tenant's id reads as unknown. */
  findOne(organizationId: string, id: string): Promise<MediaGenerationEntity | null> {
    return this.rows.findOne({ where: { organizationId, id } });
  }
}
