import { IsString } from 'class-validator';
import { rpc } from '../contract';
import { type Principal, PrincipalField } from '../principal';

/** A generation's status values, as the interface lists them. */
export const GENERATION_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
export type MediaGenerationStatus = (typeof GENERATION_STATUSES)[number];

export class GetMediaGenerationRequest {
  @PrincipalField()
  principal!: Principal;

  @IsString()
  id!: string;
}

/** The Generation record of the interface. */
export interface MediaGeneration {
  id: string;
  object: 'media.generation';
  status: MediaGenerationStatus;
  created: number;
  model: string;
  completed_at?: number;
  data?: unknown;
  usage?: Record<string, number>;
  error?: { code: string; message: string };
  content?: string;
  reasoning_summary?: string;
  warnings?: string[];
}

export const MediaContracts = {
  getGeneration: rpc<GetMediaGenerationRequest, MediaGeneration>(
    'media.v1.get-generation',
    GetMediaGenerationRequest,
  ),
} as const;
