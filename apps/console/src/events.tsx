// A tiny in-page signal: something that changes what is held for review (publish, approve, a
// server removed) happened, so the navigation's Review count reloads.

const EVENT = 'switchboard:changed';

/** Tells listeners the tenant's publications or held changes may have changed. */
export function notifyChanged(): void {
  dispatchEvent(new Event(EVENT));
}

/** Runs `fn` on every notifyChanged(); returns the unsubscribe. */
export function onChanged(fn: () => void): () => void {
  addEventListener(EVENT, fn);
  return () => removeEventListener(EVENT, fn);
}
