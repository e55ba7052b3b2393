/** One stored event of a legacy SSE response stream. */
export interface StoredStreamEvent {
  /** Position in its stream: 0 is the priming event, then 1, 2, … */
  seq: number;
  /** The encoded JSON-RPC message (empty for the priming event). */
  data: string;
}

/**
 * Keeps the events of legacy POST SSE streams for `Last-Event-ID` resumption on any replica
 * (the gateway uses Redis streams). Bounded by the implementation: events per stream, a TTL,
 * and streams per tenant; a stream over a bound is simply not retained (resumption then says so).
 */
export interface StreamEventStore {
  /** Stores event `seq` of a stream (fire and forget: the live stream never waits on it). */
  append(tenantId: string, streamId: string, seq: number, data: string, final: boolean): void;
  /**
   * Events after `afterSeq`, and whether the final one (the response) is among them;
   * undefined when the stream is not retained (expired, over a bound, or never stored).
   */
  read(tenantId: string, streamId: string, afterSeq: number): Promise<{ events: StoredStreamEvent[]; final: boolean } | undefined>;
}
