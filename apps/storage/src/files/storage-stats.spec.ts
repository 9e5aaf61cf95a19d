import { storageStats } from './stored-file.service';

describe('storageStats', () => {
  it('adds bytes and counts per type and policy, and the share of the quota to two decimals', () => {
    expect(
      storageStats(
        [
          { fileType: 'IMAGE', storagePolicy: 'PERMANENT', files: 2, bytes: 1_000 },
          { fileType: 'VIDEO', storagePolicy: 'TEMP_GENERATION', files: 1, bytes: 2_000 },
          { fileType: 'IMAGE', storagePolicy: 'TEMP_UPLOAD', files: 3, bytes: 334 },
        ],
        10_000,
      ),
    ).toEqual({
      usedBytes: 3_334,
      totalBytes: 10_000,
      fileCount: 6,
      filesByType: { IMAGE: 5, VIDEO: 1, AUDIO: 0 },
      filesByPolicy: { TEMP_UPLOAD: 3, TEMP_GENERATION: 1, PERMANENT: 2 },
      usagePercent: 33.34,
    });
  });

  it('answers zeros for an organization without files', () => {
    expect(storageStats([], 100)).toMatchObject({ usedBytes: 0, fileCount: 0, usagePercent: 0 });
  });
});
