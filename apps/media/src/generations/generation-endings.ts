import { Injectable } from '@nestjs/common';

/**
 * Tells the waits on this replica that a generation ended here, so that they answer at once
 * instead of at their next read; a generation that ends on another replica is seen at that read.
 */
@Injectable()
export class GenerationEndings {
  private readonly waiting = new Map<string, Set<() => void>>();

  ended(id: string): void {
    const waits = this.waiting.get(id);
    this.waiting.delete(id);
    waits?.forEach((wake) => wake());
  }

  /** Resolves when `id` ends on this replica or after `ms`, whichever comes first. */
  wait(id: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waits = this.waiting.get(id) ?? new Set<() => void>();
      const wake = () => {
        clearTimeout(timer);
        waits.delete(wake);
        if (waits.size === 0 && this.waiting.get(id) === waits) this.waiting.delete(id);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      waits.add(wake);
      this.waiting.set(id, waits);
    });
  }
}
