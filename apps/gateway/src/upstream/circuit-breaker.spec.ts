import { CircuitBreaker } from './circuit-breaker';

describe('CircuitBreaker', () => {
  let t = 0;
  const make = () => new CircuitBreaker({ failureThreshold: 3, openMs: 1000, now: () => t });
  beforeEach(() => {
    t = 0;
  });

  it('stays closed below the failure threshold and resets on success', () => {
    const b = make();
    b.failure();
    b.failure();
    b.success();
    b.failure();
    b.failure();
    expect(b.state).toBe('closed');
    expect(b.tryPass()).toBe(true);
  });

  it('opens after consecutive failures and refuses calls while open', () => {
    const b = make();
    for (let i = 0; i < 3; i++) b.failure();
    expect(b.state).toBe('open');
    expect(b.tryPass()).toBe(false);
    expect(b.retryInMs).toBe(1000);
  });

  it('lets one trial through when half-open; success closes, failure reopens', () => {
    const b = make();
    for (let i = 0; i < 3; i++) b.failure();
    t = 1000;
    expect(b.state).toBe('half-open');
    expect(b.tryPass()).toBe(true);
    expect(b.tryPass()).toBe(false);
    b.failure();
    expect(b.state).toBe('open');
    t = 2000;
    expect(b.tryPass()).toBe(true);
    b.success();
    expect(b.state).toBe('closed');
  });
});
