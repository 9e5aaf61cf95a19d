import type { MediaGeneration, MediaResultFile } from '@gw/contracts';
import type { MediaGenerationEntity } from './media-generation.entity';

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * The interface's Generation record of a stored generation, its result files already signed:
 * images answer a list in `data`, a video, a sound or an upscale one file with its `url`.
 */
export function mediaGenerationView(row: MediaGenerationEntity, files: MediaResultFile[]): MediaGeneration {
  const data = row.status !== 'completed' ? undefined : row.requestType === 'image' ? files : files[0];
  return {
    id: row.id,
    object: 'media.generation',
    status: row.status,
    created: unixSeconds(row.createdAt),
    model: row.model,
    ...(row.completedAt ? { completed_at: unixSeconds(row.completedAt) } : {}),
    ...(data !== undefined ? { data } : {}),
    ...(row.status === 'completed' && row.usage ? { usage: row.usage } : {}),
    ...(row.status === 'failed' && row.error ? { error: row.error } : {}),
    ...(row.warnings.length > 0 ? { warnings: row.warnings } : {}),
  };
}
