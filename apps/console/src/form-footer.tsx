import type { ComponentChildren } from 'preact';
import type { ApiError } from './api';
import { Allowed, type Role } from './role';
import { ErrorBox } from './ui';

/**
 * The end of every console form: the refusal that names no field (if any), then a row of the
 * form's buttons and its live status line (what the last submit did).
 */
export function FormFooter(props: {
  error?: ApiError | undefined;
  errorTitle?: string;
  notice: ComponentChildren;
  noticeTestId?: string;
  live?: boolean;
  children: ComponentChildren;
}) {
  return (
    <>
      {props.error && <ErrorBox error={props.error} title={props.errorTitle} />}
      <div class="row">
        {props.children}
        <span class="ok-text" role="status" aria-live={props.live ? 'polite' : undefined} data-testid={props.noticeTestId}>
          {props.notice}
        </span>
      </div>
    </>
  );
}

/**
 * A form's submit button, which says what it is doing while the submit runs. With `needed`, only
 * callers of that role see it; others are told what `what` needs (see Allowed).
 */
export function SubmitButton(props: {
  busy: boolean;
  label: string;
  busyLabel?: string;
  primary?: boolean;
  disabled?: boolean;
  needed?: Role;
  what?: string;
}) {
  const button = (
    <button type="submit" class={props.primary === false ? undefined : 'primary'} disabled={props.busy || props.disabled}>
      {props.busy ? (props.busyLabel ?? 'Saving…') : props.label}
    </button>
  );
  return props.needed ? (
    <Allowed needed={props.needed} what={props.what}>
      {button}
    </Allowed>
  ) : (
    button
  );
}
