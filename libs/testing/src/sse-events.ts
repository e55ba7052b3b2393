/** One Server-Sent Event as the wire carries it (comments skipped, `data:` lines joined). */
export interface SseEvent {
  id?: string;
  retry?: string;
  data: string;
}

/**
 * Reads a streaming response's SSE events one at a time (each call resolves the next event;
 * rejects when the stream ends first). Hand-written rather than eventsource-parser: that package
 * is only a transitive dependency here, and tests need the raw `id`/`retry` fields as sent.
 */
export function sseEvents(res: Response): () => Promise<SseEvent> {
  if (!res.body) throw new Error(`response ${res.status} has no body to read events from`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return async () => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseBlock(block);
        if (event) return event;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended; left: ${buffer.slice(0, 200)}`);
      buffer += decoder.decode(value, { stream: true });
    }
  };
}

/** Reads the JSON messages (`data:` payloads) of a streaming response one at a time, skipping events without data (priming ids). */
export function sseMessages<T = Record<string, unknown>>(res: Response): () => Promise<T> {
  const next = sseEvents(res);
  return async () => {
    for (;;) {
      const event = await next();
      if (event.data !== '') return JSON.parse(event.data) as T;
    }
  };
}

function parseBlock(block: string): SseEvent | undefined {
  const event: SseEvent = { data: '' };
  let fields = 0;
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    if (colon === 0) continue;
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    fields++;
    if (name === 'id') event.id = value;
    else if (name === 'retry') event.retry = value;
    else if (name === 'data') event.data += value;
  }
  return fields > 0 ? event : undefined;
}
