import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { asApiError, type ApiError } from './api';

// The submit and action state every console form and list page shares (re-exported by ui.tsx).

/**
 * After a failed submit, moves focus to the first invalid field of the form, or else to its error
 * summary, so keyboard and screen-reader users land on what to fix. `failure` changes on every failure.
 */
export function useFocusOnError(ref: RefObject<HTMLElement | null>, failure: unknown): void {
  useEffect(() => {
    if (!failure || !ref.current) return;
    const target = ref.current.querySelector<HTMLElement>('[aria-invalid="true"]') ?? ref.current.querySelector<HTMLElement>('.error-box');
    target?.focus();
  }, [failure]);
}

/** One form's submit state: the refusal (beside its fields, else in `formError`), busy, and the form's ref for focus. */
export interface FormSubmit {
  ref: RefObject<HTMLFormElement | null>;
  busy: boolean;
  /** DOM id → message: the console's own checks over the API's field errors. */
  fields: Record<string, string>;
  /** The refusal when it names no field on the form (shown in an ErrorBox). */
  formError: ApiError | undefined;
  /**
   * One submit: `problems` (DOM id → message) found before sending are shown and nothing is sent;
   * else `send` runs, and what it throws lands beside its fields. Either way focus then moves to
   * the first invalid field, or the error box.
   */
  run(problems: Record<string, string>, send: () => Promise<void>): Promise<void>;
  /** Forgets the last refusal (a submit that sends nothing, e.g. "nothing changed"). */
  clear(): void;
}

/** The submit logic every console form shares; `ids` maps the API's field names to the form's DOM ids (see splitError). */
export function useFormSubmit(ids: Record<string, string>): FormSubmit {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [local, setLocal] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<object | undefined>(undefined);
  const ref = useRef<HTMLFormElement>(null);
  // Fields edited since the last refusal: their message is about a value no longer there.
  const [edited, setEdited] = useState<ReadonlySet<string>>(new Set());
  useFocusOnError(ref, failure);
  useEditedFields(ref, setEdited);
  const split = splitError(error, ids);
  const clear = () => {
    setError(undefined);
    setLocal({});
  };
  const run = async (problems: Record<string, string>, send: () => Promise<void>) => {
    setError(undefined);
    setEdited(new Set());
    setLocal(problems);
    // A fresh object on every failure: the focus moves again even when the message is the same.
    if (Object.keys(problems).length > 0) return setFailure({});
    setBusy(true);
    try {
      await send();
    } catch (err) {
      setError(asApiError(err));
      setFailure({});
    } finally {
      setBusy(false);
    }
  };
  const fields = Object.fromEntries(Object.entries({ ...split.fields, ...local }).filter(([id]) => !edited.has(id)));
  return { ref, busy, fields, formError: split.form, run, clear };
}

/**
 * Records the id of every control the user changes inside the form (input and change events
 * bubble to it), so a refusal's message under a field goes away as soon as the field is edited.
 */
export function useEditedFields(
  ref: RefObject<HTMLElement | null>,
  setEdited: (f: (cur: ReadonlySet<string>) => ReadonlySet<string>) => void,
): void {
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const on = (e: Event) => {
      const target = e.target as HTMLInputElement | HTMLSelectElement | null;
      // A checkbox or select fires input before change, and the page's own handler listens to change: a
      // re-render between the two would put the old (controlled) value back before the page sees the new one.
      if (
        e.type === 'input' &&
        target &&
        (target.tagName === 'SELECT' || (target as HTMLInputElement).type === 'checkbox' || (target as HTMLInputElement).type === 'radio')
      )
        return;
      const id = target?.id;
      if (id) setEdited((cur) => (cur.has(id) ? cur : new Set([...cur, id])));
    };
    el.addEventListener('input', on);
    el.addEventListener('change', on);
    return () => {
      el.removeEventListener('input', on);
      el.removeEventListener('change', on);
    };
  }, [ref.current]);
}

/** Actions on a page's items (remove, rediscover): the last one's refusal or notice, then the page reloads. */
export interface Actions {
  error: ApiError | undefined;
  notice: string;
  setNotice(notice: string): void;
  /** Runs `act` (its answer, if any, becomes the notice; what it throws, the error), then reloads the page's data. */
  run(act: () => Promise<string | undefined | void>): Promise<void>;
}

/** The action logic the list pages share: clear the last outcome, run, say what happened, reload. */
export function useActions(reload: () => Promise<void>): Actions {
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const run = async (act: () => Promise<string | undefined | void>) => {
    setError(undefined);
    setNotice('');
    try {
      const done = await act();
      if (done) setNotice(done);
    } catch (err) {
      setError(asApiError(err));
    }
    await reload();
  };
  return { error, notice, setNotice, run };
}

/**
 * Splits an API error into field errors (shown beside the fields, keyed by the form's field ids
 * through `map`: API field → DOM id) and a form-level error when no named field is on the form.
 */
export function splitError(
  err: ApiError | undefined,
  map: Record<string, string>,
): { fields: Record<string, string>; form: ApiError | undefined } {
  if (!err) return { fields: {}, form: undefined };
  const fields: Record<string, string> = {};
  for (const [f, m] of Object.entries(err.fieldErrors())) if (map[f]) fields[map[f]] ??= m;
  return { fields, form: Object.keys(fields).length > 0 ? undefined : err };
}
