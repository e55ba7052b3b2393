import { pollUntil } from './poll-until';

describe('pollUntil', () => {
  it('returns the first truthy value', async () => {
    let n = 0;
    await expect(pollUntil('n to reach 3', () => (++n >= 3 ? n : undefined), 5_000, 1)).resolves.toBe(3);
  });

  it('times out naming what it waited for and the last error', async () => {
    await expect(
      pollUntil(
        'a miracle',
        () => {
          throw new Error('not yet');
        },
        30,
        5,
      ),
    ).rejects.toThrow('timed out after 30 ms waiting for a miracle: not yet');
  });
});
