import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { asApiError, type ApiError } from './api';

export { splitError, useActions, useEditedFields, useFocusOnError, useFormSubmit, type Actions, type FormSubmit } from './form-state';

/** State of one load: loading, its data, or the error. */
export interface Load<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload(): Promise<void>;
}

/** Loads `fn` on mount (and on `reload`); stale answers of an earlier call are dropped. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[] = []): Load<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++seq.current;
    setLoading(true);
    try {
      const v = await fn();
      if (mine === seq.current) {
        setData(v);
        setError(undefined);
      }
    } catch (err) {
      if (mine === seq.current) setError(asApiError(err));
    } finally {
      if (mine === seq.current) setLoading(false);
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, loading, reload };
}

export function Spinner({ label }: { label: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

/** An error the user can read, with a retry when there is something to retry. */
export function ErrorBox({ error, retry, title }: { error: ApiError; retry?: () => void; title?: string }) {
  return (
    <div class="error-box" role="alert" tabIndex={-1}>
      <strong>{title ?? 'Something went wrong'}</strong>
      <p>{error.message}</p>
      {error.code !== 'HTTP' && error.code !== 'CLIENT' && (
        <p class="muted small">
          {error.code}
          {error.status ? ` · HTTP ${error.status}` : ''}
        </p>
      )}
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

/**
 * Everything a loaded page shows besides its data: the load's error (with "Try again"), a spinner
 * during the first load, and `empty` once the data has come and `isEmpty` says there is none (by
 * default: an empty array).
 */
export function LoadStatus<T>(props: {
  load: Load<T>;
  errorTitle: string;
  loadingLabel: string;
  empty?: ComponentChildren;
  isEmpty?: (data: T) => boolean;
}) {
  const { load } = props;
  const isEmpty = props.isEmpty ?? ((d: T) => Array.isArray(d) && d.length === 0);
  return (
    <>
      {load.error && <ErrorBox error={load.error} title={props.errorTitle} retry={() => void load.reload()} />}
      {!load.data && load.loading && <Spinner label={props.loadingLabel} />}
      {props.empty !== undefined && load.data !== undefined && isEmpty(load.data) && <Empty>{props.empty}</Empty>}
    </>
  );
}

/** A table of records (`table.data`): one header row of `columns`, then the rows given as children. */
export function DataTable({ testId, columns, children }: { testId: string; columns: ComponentChildren[]; children: ComponentChildren }) {
  return (
    <table class="data" data-testid={testId}>
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

/** A labelled form field with its own error line (the API's field-level error lands here). */
export function Field(props: {
  id: string;
  label: string;
  value: string;
  onInput: (v: string) => void;
  error?: string;
  hint?: string;
  type?: 'text' | 'url' | 'password';
  placeholder?: string;
  required?: boolean;
  multiline?: boolean;
  /** Height of a multiline field (default 3). */
  rows?: number;
  /** Monospace text (JSON, code). */
  mono?: boolean;
  autoComplete?: string;
  inputMode?: 'numeric' | 'text';
  /** A note that is not an error but needs attention (e.g. "required before publishing"). */
  warning?: string;
  onBlur?: (e: FocusEvent) => void;
  /** Another element describing the control (e.g. a live status line among `children`). */
  describedBy?: string;
  /** Shown under the field's own lines, inside its container. */
  children?: ComponentChildren;
}) {
  const errId = `${props.id}-error`;
  const hintId = `${props.id}-hint`;
  const warnId = `${props.id}-warning`;
  const describedBy =
    [props.error ? errId : '', props.warning && !props.error ? warnId : '', props.hint ? hintId : '', props.describedBy ?? '']
      .filter(Boolean)
      .join(' ') || undefined;
  const common = {
    id: props.id,
    name: props.id,
    value: props.value,
    placeholder: props.placeholder,
    required: props.required,
    'aria-invalid': props.error ? true : undefined,
    'aria-describedby': describedBy,
    onInput: (e: Event) => props.onInput((e.currentTarget as HTMLInputElement | HTMLTextAreaElement).value),
    onBlur: props.onBlur,
  };
  return (
    <div class={`field${props.error ? ' invalid' : ''}`}>
      <label for={props.id}>{props.label}</label>
      {props.multiline ? (
        <textarea rows={props.rows ?? 3} class={props.mono ? 'mono' : undefined} spellcheck={props.mono ? false : undefined} {...common} />
      ) : props.type === 'password' ? (
        <input type="password" autoComplete={props.autoComplete ?? 'off'} {...common} />
      ) : props.type === 'url' ? (
        <input type="url" autoComplete={props.autoComplete ?? 'off'} {...common} />
      ) : (
        <input type="text" autoComplete={props.autoComplete ?? 'off'} inputMode={props.inputMode} {...common} />
      )}
      {props.hint && (
        <p id={hintId} class="hint">
          {props.hint}
        </p>
      )}
      {props.error && (
        <p id={errId} class="field-error" data-testid={`${props.id}-error`}>
          {props.error}
        </p>
      )}
      {props.warning && !props.error && (
        <p id={warnId} class="field-warning" data-testid={`${props.id}-warning`}>
          {props.warning}
        </p>
      )}
      {props.children}
    </div>
  );
}

/** A labelled `<select>` with its own error line, like Field. */
export function SelectField(props: {
  id: string;
  label: ComponentChildren;
  value: string;
  onChange: (v: string) => void;
  options: Array<{ value: string; label: string }>;
  error?: string;
  hint?: string;
  warning?: string;
}) {
  const errId = `${props.id}-error`;
  const hintId = `${props.id}-hint`;
  const warnId = `${props.id}-warning`;
  const describedBy =
    [props.error ? errId : '', props.warning && !props.error ? warnId : '', props.hint ? hintId : ''].filter(Boolean).join(' ') ||
    undefined;
  return (
    <div class={`field${props.error ? ' invalid' : props.warning ? ' attention' : ''}`}>
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        name={props.id}
        value={props.value}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={describedBy}
        onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value)}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {props.hint && (
        <p id={hintId} class="hint">
          {props.hint}
        </p>
      )}
      {props.error && (
        <p id={errId} class="field-error" data-testid={errId}>
          {props.error}
        </p>
      )}
      {props.warning && !props.error && (
        <p id={warnId} class="field-warning" data-testid={warnId}>
          {props.warning}
        </p>
      )}
    </div>
  );
}

export function Badge({ tone, children }: { tone: 'ok' | 'warn' | 'fail' | 'muted' | 'info'; children: ComponentChildren }) {
  return <span class={`badge ${tone}`}>{children}</span>;
}

/** Relative time, readable at a glance ("12 s ago"); the exact time is in the title. */
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">never</span>;
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return <span>{at}</span>;
  const s = Math.round((Date.now() - d.getTime()) / 1000);
  const text =
    s < 5
      ? 'just now'
      : s < 60
        ? `${s} s ago`
        : s < 3600
          ? `${Math.round(s / 60)} min ago`
          : s < 86400
            ? `${Math.round(s / 3600)} h ago`
            : d.toLocaleString();
  return (
    <time dateTime={d.toISOString()} title={d.toLocaleString()}>
      {text}
    </time>
  );
}

/** A button that copies text, saying so (clipboard needs a secure context; else the text is selected for Ctrl+C). */
export function CopyButton({ text, label, targetId }: { text: string; label: string; targetId?: string }) {
  const [done, setDone] = useState<string>('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone('Copied');
    } catch {
      const el = targetId ? document.getElementById(targetId) : null;
      if (el) {
        const range = document.createRange();
        range.selectNodeContents(el);
        const sel = window.getSelection();
        sel?.removeAllRanges();
        sel?.addRange(range);
      }
      setDone('Selected — press Ctrl+C to copy');
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span class="muted small" role="status" aria-live="polite">
        {done}
      </span>
    </span>
  );
}
