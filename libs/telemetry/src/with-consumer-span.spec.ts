import { context, propagation, trace } from '@opentelemetry/api';
import { startTelemetry } from './start-telemetry';
import { withConsumerSpan } from './with-consumer-span';

const telemetry = startTelemetry({ serviceName: 'spec', serviceVersion: '0.0.0', env: {} });
afterAll(async () => {
  await telemetry.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

/** The `queue_job_wait_seconds` sum of one job name. */
async function waitSum(job: string): Promise<number> {
  const text = await telemetry.metricsText();
  const m = new RegExp(`queue_job_wait_seconds_sum\\{[^}]*job="${job}"[^}]*\\} ([0-9.e+-]+)`).exec(text);
  return m ? Number(m[1]) : NaN;
}

describe('withConsumerSpan queue wait', () => {
  it('measures wait from the due time: a repeatable job scheduled an hour ahead has not waited an hour', async () => {
    const now = Date.now();
    await withConsumerSpan(
      'q',
      { name: 'repeat', timestamp: now - 3_600_000, delay: 3_600_000 - 50, processedOn: now, data: {} },
      async () => 1,
    );
    const sum = await waitSum('repeat');
    expect(sum).toBeGreaterThanOrEqual(0.04);
    expect(sum).toBeLessThan(1);
  });

  it('an immediate job waits from enqueue; a retry is not counted again', async () => {
    const now = Date.now();
    await withConsumerSpan('q', { name: 'plain', timestamp: now - 2_000, processedOn: now, data: {} }, async () => 1);
    await withConsumerSpan('q', { name: 'plain', timestamp: now - 60_000, processedOn: now, attemptsMade: 1, data: {} }, async () => 1);
    expect(await waitSum('plain')).toBeCloseTo(2, 1);
  });
});
