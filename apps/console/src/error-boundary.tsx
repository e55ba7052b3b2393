import { Component, type ComponentChildren } from 'preact';

interface State {
  error: Error | undefined;
}

/** Catches a render error of one page so the console never goes blank; the rest of the app keeps working. */
export class ErrorBoundary extends Component<{ children: ComponentChildren; resetKey: string }, State> {
  override state: State = { error: undefined };

  static override getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown): void {
    console.error('console page failed to render', error);
  }

  override componentDidUpdate(prev: { resetKey: string }): void {
    // Navigating to another page clears the error.
    if (prev.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: undefined });
  }

  override render() {
    if (this.state.error) {
      return (
        <div class="error-box" role="alert">
          <strong>This page hit an unexpected error</strong>
          <p>{this.state.error.message}</p>
          <p class="muted small">Your data is safe. Try again, or pick another page.</p>
          <button type="button" onClick={() => this.setState({ error: undefined })}>
            Try again
          </button>
        </div>
      );
    }
    return this.props.children;
  }
}
